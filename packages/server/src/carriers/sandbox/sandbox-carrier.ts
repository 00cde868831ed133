import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { Pump } from '../../lib/pump.ts';
import { sandboxTimeline } from '../../domain/sandbox-timeline.ts';
import {
  claimSandboxReceipts,
  deleteSandboxReceipt,
  insertSandboxReceipts,
  nextSandboxReceiptDue,
} from '../../store/repos/sandbox-receipts.ts';
import type { Store } from '../../store/store.ts';
import type { Carrier, CarrierHandlers, Submission } from '../carrier.ts';

/** Receipts claimed per round. */
const BATCH = 200;
/** A claimed receipt not reported within this lease is claimed again (its worker died). */
const LEASE_MS = 30_000;
/** A receipt for a reference not recorded yet is retried after this long… */
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

  const round = async () => {
    const now = clock.now();
    const claimed = await store.write((tx) =>
      claimSandboxReceipts(tx.db, store.capabilities, now, BATCH, LEASE_MS),
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
    await store.write(async (tx) => {
      for (const { row, outcome } of outcomes) {
        if (outcome !== 'unknown' || now - row.due_at > UNKNOWN_GIVE_UP_MS) {
          await deleteSandboxReceipt(tx.db, row.id);
        } else {
          await tx.db
            .updateTable('sandbox_receipts')
            .set({ locked_until: now + UNKNOWN_RETRY_MS })
            .where('id', '=', row.id)
            .execute();
        }
      }
    });
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
      await store.write((tx) =>
        insertSandboxReceipts(
          tx.db,
          steps.map((step) => ({
            id: newId('sbr', now),
            carrier_ref: carrierRef,
            status: step.status,
            failure_reason: step.failureReason,
            due_at: now + step.afterMs,
            locked_until: 0,
          })),
        ),
      );
      return { carrierRef };
    },
  };
}
