import { IDEMPOTENCY_WINDOW_MS } from '../commands/idempotency.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { Pump } from '../lib/pump.ts';
import { deleteEndedEventsBefore } from '../store/repos/expired-events.ts';
import { deleteIdempotencyKeysBefore } from '../store/repos/idempotency-keys.ts';
import { deleteInboundRefsBefore } from '../store/repos/inbound-refs.ts';
import { deleteMediaBefore } from '../store/repos/media.ts';
import { deleteExpiredSessions } from '../store/repos/sessions.ts';
import type { Store } from '../store/store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How often the sweep runs after the one at start. */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Rows of one batch (of events: each with its deliveries and attempts), a transaction
 * of its own: a write waits behind one batch at most. Measured over 20 000 expired rows
 * of each kind, each event with two deliveries of two attempts, on a busy 2-core
 * machine (median, best): SQLite 0.9 ms (0.6) for idempotency records or sessions,
 * 5–7 ms (2.2) for events; PostgreSQL 4–8 ms (3–4.5) and 12 ms (6). Batches of 500
 * events took 90–110 ms.
 */
export const SWEEP_BATCH_ROWS = 100;

/** What one sweep removed. */
export interface SweepCounts {
  idempotencyKeys: number;
  sessions: number;
  /** Webhook events, each with its deliveries and their attempts. */
  events: number;
  /** Inbound media past the retention period (their links have ended with them). */
  media: number;
  /** Providers' ids of inbound texts past the retention period. */
  inboundRefs: number;
}

/**
 * Removes what the service keeps only for a while: idempotency records past their
 * 24 h, expired softphone sessions, inbound media and providers' ids of inbound texts past the
 * retention period, and webhook events (with their deliveries and
 * attempts) older than the retention period whose deliveries have all ended. Messages,
 * contacts and calls are kept. Runs at start, then every `intervalMs`, in small
 * batches so it never holds the write path for long.
 */
export class RetentionSweep {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retentionMs: number;
  readonly #batchRows: number;
  readonly #pump: Pump;
  #stopping = false;

  constructor(options: {
    store: Store;
    clock: Clock;
    logger: Logger;
    /** How long webhook events and attempts are kept (`SWITCHBOARD_RETENTION_DAYS`). */
    retentionDays: number;
    intervalMs?: number;
    batchRows?: number;
  }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#retentionMs = options.retentionDays * DAY_MS;
    this.#batchRows = options.batchRows ?? SWEEP_BATCH_ROWS;
    const intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
    this.#pump = new Pump({
      round: async () => {
        await this.sweep();
        return { again: 'at', at: this.#clock.now() + intervalMs };
      },
      clock: options.clock,
      pollMs: intervalMs,
      onError: (error) => this.#logger.error({ err: error }, 'retention sweep failed'),
    });
  }

  /** Sweeps now, and again every interval. */
  start(): void {
    this.#stopping = false;
    this.#pump.start();
  }

  /** Stops after the batch in flight. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#pump.stop();
  }

  /** One whole sweep, batch after batch until nothing expired is left. */
  async sweep(): Promise<SweepCounts> {
    const now = this.#clock.now();
    const counts: SweepCounts = {
      idempotencyKeys: await this.#drain((db) =>
        deleteIdempotencyKeysBefore(db, now - IDEMPOTENCY_WINDOW_MS, this.#batchRows),
      ),
      sessions: await this.#drain((db) => deleteExpiredSessions(db, now, this.#batchRows)),
      events: 0,
      media: await this.#drain((db) =>
        deleteMediaBefore(db, now - this.#retentionMs, this.#batchRows),
      ),
      inboundRefs: await this.#drain((db) =>
        deleteInboundRefsBefore(db, now - this.#retentionMs, this.#batchRows),
      ),
    };
    // Events kept (a delivery still pending) stay at the front of the range: each batch
    // starts after the last event the one before looked at.
    let after = '';
    while (!this.#stopping) {
      const batch = await this.#write((db) =>
        deleteEndedEventsBefore(db, now - this.#retentionMs, after, this.#batchRows),
      );
      counts.events += batch.deleted;
      if (batch.examined < this.#batchRows || batch.last === null) break;
      after = batch.last;
    }
    if (Object.values(counts).some((n) => n > 0)) {
      this.#logger.info(counts, 'retention sweep removed expired rows');
    }
    return counts;
  }

  /** Runs `batch` until it removes fewer rows than a batch holds; returns how many in all. */
  async #drain(batch: (db: Store['db']) => Promise<number>): Promise<number> {
    let total = 0;
    while (!this.#stopping) {
      const removed = await this.#write(batch);
      total += removed;
      if (removed < this.#batchRows) break;
    }
    return total;
  }

  /**
   * One batch, one transaction. Not waited on the disk: a batch lost in a crash is
   * only swept again.
   */
  #write<T>(batch: (db: Store['db']) => Promise<T>): Promise<T> {
    return this.#store.write((tx) => batch(tx.db), { durable: false });
  }
}
