import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { Pump } from '../../lib/pump.ts';
import { sandboxTimeline } from '../../domain/sandbox-timeline.ts';
import {
  claimSandboxReceipts,
  deleteSandboxReceipts,
  insertSandboxReceipts,
  nextSandboxReceiptDue,
  releaseSandboxReceipts,
  type SandboxReceiptRow,
} from '../../store/repos/sandbox-receipts.ts';
import type { Store } from '../../store/store.ts';
import type { Carrier, CarrierHandlers, Submission } from '../carrier.ts';

/** Receipts claimed per round. */
const BATCH = 200;
/** A claimed receipt not reported within this lease is claimed again (its worker died). */
const LEASE_MS = 30_000;
/**
 * A receipt for a reference not recorded yet (the dispatcher records it in the
 * commit after the one that stored the receipts) is released at once, so the
 * wake-up that commit sends reports it; this retry is only the fallback for a
 * reference recorded by another process…
 */
const UNKNOWN_RETRY_MS = 25;
/** …until it is this old; then the submission it belongs to is gone for good. */
const UNKNOWN_GIVE_UP_MS = 10 * 60_000;

/**
 * The sandbox carrier: a carrier without a network. A submission schedules
 * its receipts in the database (the sandbox's own "network", so a restart
 * loses nothing), and a background loop reports each one when it is due.
 */
export function sandboxCarrier(options: {
  store: Store;
  clock: Clock;
  delayMs: number;
  logger: Logger;
}): Carrier {
  const { store, clock, delayMs, logger } = options;
  let handlers: CarrierHandlers | null = null;

  // The dispatcher submits a whole round at once; their receipts are stored in one
  // multi-row insert (one unit, one statement) instead of a unit per submission.
  let batch: { rows: SandboxReceiptRow[]; written: Promise<void> } | null = null;
  const scheduleReceipts = (rows: SandboxReceiptRow[]): Promise<void> => {
    if (!batch) {
      const next: { rows: SandboxReceiptRow[]; written: Promise<void> } = {
        rows: [],
        written: Promise.resolve(),
      };
      next.written = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        batch = null;
        return store.write((tx) => insertSandboxReceipts(tx.db, next.rows), { durable: false });
      });
      batch = next;
    }
    batch.rows.push(...rows);
    return batch.written;
  };

  const round = async () => {
    const now = clock.now();
    // Claims, scheduled receipts and their removal need no fsync of their own: the
    // dispatcher's durable commit that records the reference comes after the receipts in
    // the log, and a receipt reported twice is ignored.
    const claimed = await store.write(
      (tx) => claimSandboxReceipts(tx.db, store.capabilities, now, BATCH, LEASE_MS),
      { durable: false },
    );
    const outcomes = await Promise.all(
      claimed.map(async (row) => ({
        row,
        outcome: await handlers!.receipt({
          carrierRef: row.carrier_ref,
          status: row.status,
          failureReason: row.failure_reason as never,
        }),
      })),
    );
    const retry = (o: { row: SandboxReceiptRow; outcome: string }) =>
      o.outcome === 'unknown' && now - o.row.due_at <= UNKNOWN_GIVE_UP_MS;
    const done = outcomes.filter((o) => !retry(o)).map((o) => o.row.id);
    const again = outcomes.filter(retry).map((o) => o.row.id);
    if (done.length > 0 || again.length > 0) {
      await store.write(
        async (tx) => {
          await deleteSandboxReceipts(tx.db, done);
          await releaseSandboxReceipts(tx.db, again);
        },
        { durable: false },
      );
    }
    if (claimed.length === BATCH) return { again: 'now' } as const;
    const due = await nextSandboxReceiptDue(store.db);
    if (due === null) return { again: 'idle' } as const;
    return {
      again: 'at',
      at: Math.max(
        due,
        now + (outcomes.some((o) => o.outcome === 'unknown') ? UNKNOWN_RETRY_MS : 0),
      ),
    } as const;
  };

  const pump = new Pump({
    round,
    clock,
    pollMs: 1000,
    onError: (error) => logger.error({ err: error }, 'sandbox carrier round failed'),
  });
  const wake = () => pump.wake();

  return {
    name: 'sandbox',
    window: 1000,
    async start(h) {
      handlers = h;
      store.signals.on('outbound.submitted', wake);
      pump.start();
    },
    async stop() {
      store.signals.off('outbound.submitted', wake);
      await pump.stop();
    },
    async submit(submission: Submission) {
      const carrierRef = newId('sbx', clock.now());
      const now = clock.now();
      const steps = sandboxTimeline(submission.to, delayMs);
      await scheduleReceipts(
        steps.map((step) => ({
          id: newId('sbr', now),
          carrier_ref: carrierRef,
          status: step.status,
          failure_reason: step.failureReason,
          due_at: now + step.afterMs,
          locked_until: 0,
        })),
      );
      return { carrierRef };
    },
  };
}
