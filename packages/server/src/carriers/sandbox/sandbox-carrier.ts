import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { Pump } from '../../lib/pump.ts';
import { sandboxTimeline } from '../../domain/sandbox-timeline.ts';
import {
  listInFlightRecipients,
  type InFlightCursor,
} from '../../store/repos/in-flight-recipients.ts';
import type { Store } from '../../store/store.ts';
import { backgroundRound } from '../../store/engine/write-queue.ts';
import type { Carrier, CarrierHandlers, Submission } from '../carrier.ts';
import { ReceiptSchedule, type OwedReceipt } from './receipt-schedule.ts';

/** The sandbox's references start with this; nothing else's do. */
const REF_PREFIX = 'sbx_';
/**
 * Receipts due and not yet reported beyond which a submission waits (at most
 * ROOM_WAIT_MS) for the rounds to catch up. Receipts outnumber submissions two to
 * one, and a backlog of queued messages is submitted faster than its receipts are
 * reported: without this, a drained backlog of 120 k messages left 240 k receipts
 * owed in memory (+30 MB). More than the receipts of one dispatcher round (two for
 * each of its up to 500 submissions, `backgroundRound`), so that a round's own
 * receipts, not reportable before it settles, never stop it.
 */
const MAX_OVERDUE = 2_000;
const ROOM_WAIT_MS = 1_000;
/** How often the recipients are read for receipts another instance owed and never reported. */
const RECOVERY_EVERY_MS = 5_000;
/** A receipt this much overdue is taken for lost with the instance that owed it. */
const RECOVERY_GRACE_MS = 10_000;
/**
 * The periodic scans start this far before this instance did: a recipient another
 * instance changed just before our start, but committed after our first scan, is
 * found too. Rows found twice are in flight here already and are skipped.
 */
const RECOVERY_OVERLAP_MS = 60_000;
/** In-flight recipients read per statement while recovering. */
const RECOVERY_PAGE = 1000;
/**
 * A receipt whose reference is not recorded yet (the dispatcher records it in the
 * commit after its submissions) is tried again when the dispatcher signals that
 * commit, or after this long, in case another process recorded it…
 */
const UNKNOWN_RETRY_MS = 25;
/** …until it has been unknown this long; then the submission it belongs to is gone for good. */
const UNKNOWN_GIVE_UP_MS = 10 * 60_000;
/** A batch that failed to apply (the database restarting, say) is reported again after this. */
const FAILED_BATCH_RETRY_MS = 1_000;

/**
 * The sandbox carrier: a carrier without a network. A submission gets a
 * reference and its receipts follow the sandbox timeline (docs/behaviour.md#sandbox-carrier:
 * `sent` one delay after submission, `delivered` one more, and the magic
 * numbers), reported in batches when due.
 *
 * What the sandbox still owes is kept in memory, and is also a function of the
 * database: a recipient whose sandbox reference is recorded and that is not
 * yet delivered or failed is owed the rest of its timeline, counted from when
 * it last changed. So a restart loses nothing (the first round reads every
 * in-flight recipient) and neither does an instance that stops for good while
 * others run (every instance looks every few seconds for receipts overdue by
 * more than a grace period). A receipt reported twice, by two instances or
 * after a restart, is ignored the second time: handlers are idempotent. The
 * sandbox used to store each receipt it owed in a table of its own, written,
 * leased and deleted: six statements per message for a state the recipients
 * already hold.
 */
export function sandboxCarrier(options: {
  store: Store;
  clock: Clock;
  delayMs: number;
  logger: Logger;
}): Carrier {
  const { store, clock, delayMs, logger } = options;
  let handlers: CarrierHandlers | null = null;
  const schedule = new ReceiptSchedule();
  /** Taken receipts answered `unknown`, tried again after UNKNOWN_RETRY_MS or a dispatcher commit. */
  let unknown: OwedReceipt[] = [];
  let unknownRetryAt = Infinity;
  /** In-flight recipients last changed before this were looked at by a recovery scan. */
  let recoveredUpTo: number | null = null;
  let nextRecoveryAt = 0;
  /** Submissions waiting for the overdue receipts to fall under MAX_OVERDUE. */
  let roomWaiters: (() => void)[] = [];
  const hasRoom = () => schedule.dueBy(clock.now()) < MAX_OVERDUE;
  const releaseWaiters = () => {
    if (roomWaiters.length === 0 || !hasRoom()) return;
    const waiters = roomWaiters;
    roomWaiters = [];
    for (const resolve of waiters) resolve();
  };
  /** Resolves once there is room, or after ROOM_WAIT_MS: a stuck round never stops submissions. */
  const room = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ROOM_WAIT_MS);
      roomWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  /** Owes the receipts of `phone`'s timeline still to come after `after`, counted from `since`. */
  const owe = (carrierRef: string, phone: string, after: 'submission' | 'sent', since: number) => {
    const steps = sandboxTimeline(phone, delayMs);
    const from = after === 'sent' ? steps.findIndex((s) => s.status === 'sent') : -1;
    const offset = from >= 0 ? steps[from]!.afterMs : 0;
    for (const step of steps.slice(from + 1)) {
      schedule.add({
        carrierRef,
        status: step.status,
        failureReason: step.failureReason,
        dueAt: since + step.afterMs - offset,
        unknownSince: null,
      });
    }
  };

  /** Owes what every in-flight sandbox recipient last changed in [from, before) is still owed. */
  const recover = async (from: number, before: number) => {
    let after: InFlightCursor | null = null;
    for (;;) {
      const rows = await listInFlightRecipients(store.db, {
        refPrefix: REF_PREFIX,
        changedFrom: from,
        changedBefore: before,
        after,
        limit: RECOVERY_PAGE,
      });
      for (const row of rows) {
        if (schedule.holds(row.carrier_ref)) continue;
        owe(
          row.carrier_ref,
          row.phone,
          row.status === 'queued' ? 'submission' : 'sent',
          row.updated_at,
        );
      }
      if (rows.length < RECOVERY_PAGE) return;
      const last = rows.at(-1)!;
      after = { updatedAt: last.updated_at, carrierRef: last.carrier_ref };
    }
  };

  const recoverIfTime = async (now: number) => {
    if (now < nextRecoveryAt) return;
    nextRecoveryAt = now + RECOVERY_EVERY_MS;
    if (recoveredUpTo === null) {
      // First round: everything in flight, whenever it last changed.
      await recover(0, Number.MAX_SAFE_INTEGER);
      recoveredUpTo = now - RECOVERY_OVERLAP_MS;
      return;
    }
    // Recipients whose next receipt (one delay after their last change) is overdue by the grace.
    const upTo = now - delayMs - RECOVERY_GRACE_MS;
    if (upTo <= recoveredUpTo) return;
    await recover(recoveredUpTo, upTo);
    recoveredUpTo = upTo;
  };

  const round = async () => {
    const now = clock.now();
    await recoverIfTime(now);
    if (unknown.length > 0 && now >= unknownRetryAt) {
      for (const receipt of unknown) schedule.putBack({ ...receipt, dueAt: now });
      unknown = [];
      unknownRetryAt = Infinity;
    }
    // Receipts reported per round (each round waits for its commit to be durable).
    const due = schedule.takeDue(now, backgroundRound(store.requestLoad()));
    if (due.length > 0) {
      let outcomes;
      try {
        outcomes = await handlers!.receipts(due);
      } catch (error) {
        for (const receipt of due) {
          schedule.putBack({ ...receipt, dueAt: now + FAILED_BATCH_RETRY_MS });
        }
        throw error;
      }
      due.forEach((receipt, i) => {
        const since = receipt.unknownSince ?? now;
        if (outcomes[i] === 'unknown' && now - since <= UNKNOWN_GIVE_UP_MS) {
          unknown.push({ ...receipt, unknownSince: since });
          unknownRetryAt = Math.min(unknownRetryAt, now + UNKNOWN_RETRY_MS);
        } else {
          schedule.done(receipt);
        }
      });
      releaseWaiters();
    }
    if (schedule.earliest <= clock.now()) return { again: 'now' } as const;
    return {
      again: 'at',
      at: Math.min(schedule.earliest, unknownRetryAt, nextRecoveryAt),
    } as const;
  };

  const pump = new Pump({
    round,
    clock,
    pollMs: 1000,
    onError: (error) => logger.error({ err: error }, 'sandbox carrier round failed'),
  });
  // The dispatcher committed references: receipts that arrived before them can apply now.
  const onSubmitted = () => {
    if (unknown.length === 0) return;
    unknownRetryAt = 0;
    pump.wake();
  };

  return {
    name: 'sandbox',
    window: 1000,
    async start(h) {
      handlers = h;
      store.signals.on('outbound.submitted', onSubmitted);
      pump.start();
    },
    async stop() {
      store.signals.off('outbound.submitted', onSubmitted);
      await pump.stop();
      for (const resolve of roomWaiters.splice(0)) resolve();
    },
    async submit(submission: Submission) {
      if (!hasRoom()) await room();
      const now = clock.now();
      const carrierRef = newId('sbx', now);
      owe(carrierRef, submission.to, 'submission', now);
      // On a timer even when due now: the dispatcher records the reference in this turn.
      pump.wakeAt(schedule.earliest);
      return { carrierRef };
    },
  };
}
