import type { EventEmitter } from 'node:events';
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** What a unit of work gets inside the shared transaction. */
export interface WriteTx {
  /** The open transaction. Every statement of the unit runs on it. */
  db: Kysely<DB>;
  /** Runs `fn` once the transaction is durable (wake workers, push to clients). */
  afterCommit(fn: () => void): void;
  /**
   * Emits `topic` on the store's signals once the transaction is durable; on
   * PostgreSQL also in every other process sharing the database (SignalRelay).
   */
  publish(topic: string, payload: unknown): void;
  /**
   * A cache that lives as long as the store, for facts that never change once
   * committed (which account holds a number). Fill it from `afterCommit`, so a
   * rolled-back read never lands in it.
   */
  memo: Map<string, unknown>;
}

/** A unit of work: its statements commit together, or not at all. */
export type WriteUnit<T> = (tx: WriteTx) => Promise<T>;

/**
 * Runs `body` inside one database transaction and resolves once it is committed;
 * `durable: false` may skip the flush to disk (see `WriteOptions`).
 */
export type TransactionRunner = (
  body: (db: Kysely<DB>) => Promise<void>,
  durable: boolean,
) => Promise<void>;

/** How a unit wants its commit. */
export interface WriteOptions {
  /**
   * `false` for bookkeeping a crash would redo anyway (leases, claims, receipts a
   * carrier reports again): a batch of only such units commits without waiting
   * for the disk. The log is sequential, so the next durable commit makes them
   * durable too, and no durable change can ever depend on one that was lost.
   * Default `true`: a resolved write is on disk.
   */
  durable?: boolean;
}

/**
 * Hands every signal the committed units published to other processes, from
 * inside the transaction (PostgreSQL), so instances sharing a database wake
 * their workers and push to their clients as if the change were their own.
 */
export type SignalRelay = (
  db: Kysely<DB>,
  signals: { topic: string; payload: unknown }[],
) => Promise<void>;

// Compiled once: three of these statements wrap every unit, and building them through the
// query builder cost more than running them.
const SAVEPOINT = CompiledQuery.raw('savepoint unit');
const RELEASE = CompiledQuery.raw('release savepoint unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint unit');

interface Pending {
  unit: WriteUnit<unknown>;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Most units in one transaction; a bigger burst is split across commits. */
const MAX_BATCH = 1000;

/**
 * Group commit. Units submitted in the same event-loop turn (and while the
 * previous commit is in flight) share one transaction, each inside its own
 * savepoint so a failing unit rolls back alone. Every caller is answered only
 * after the commit, so a resolved write is durable.
 *
 * One fsync per request measured ~2.5 k requests/s with a p99 over 100 ms on a
 * 2-core machine; sharing the commit raised that to 9–17 k/s with a p99 under
 * 30 ms. One batch is in flight at a time: the next batch fills while it commits.
 */
export class WriteQueue {
  #pending: Pending[] = [];
  #running: Promise<void> | null = null;
  #scheduled = false;
  #closed = false;
  readonly #runTransaction: TransactionRunner;
  readonly #signals: EventEmitter;
  readonly #relay: SignalRelay | null;
  readonly #memo = new Map<string, unknown>();

  constructor(
    runTransaction: TransactionRunner,
    signals: EventEmitter,
    relay: SignalRelay | null = null,
  ) {
    this.#runTransaction = runTransaction;
    this.#signals = signals;
    this.#relay = relay;
  }

  /** Queues a unit; resolves with its result after its transaction commits. */
  submit<T>(unit: WriteUnit<T>, options: WriteOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    return new Promise<T>((resolve, reject) => {
      const durable = options.durable ?? true;
      this.#pending.push({ unit, durable, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Finishes every queued unit, then refuses new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#running || this.#pending.length > 0) {
      if (this.#running) await this.#running;
      else await this.#flush();
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    // setImmediate runs after the current turn's I/O callbacks, so every
    // request parsed in this turn joins the batch.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#running || this.#pending.length === 0) return;
    const batch = this.#pending.splice(0, MAX_BATCH);
    this.#running = this.#commit(batch);
    try {
      await this.#running;
    } finally {
      this.#running = null;
      if (this.#pending.length > 0) this.#schedule();
    }
  }

  async #commit(batch: Pending[]): Promise<void> {
    const outcomes: { ok: boolean; value: unknown; after: (() => void)[] }[] = [];
    try {
      await this.#runTransaction(
        async (db) => {
          const relayed: { topic: string; payload: unknown }[] = [];
          for (const item of batch) {
            const after: (() => void)[] = [];
            const published: { topic: string; payload: unknown }[] = [];
            const publish = (topic: string, payload: unknown) => {
              published.push({ topic, payload });
              after.push(() => this.#signals.emit(topic, payload));
            };
            await db.executeQuery(SAVEPOINT);
            try {
              const value = await item.unit({
                db,
                afterCommit: (fn) => after.push(fn),
                publish,
                memo: this.#memo,
              });
              await db.executeQuery(RELEASE);
              relayed.push(...published);
              outcomes.push({ ok: true, value, after });
            } catch (error) {
              await db.executeQuery(ROLLBACK_TO);
              await db.executeQuery(RELEASE);
              outcomes.push({ ok: false, value: error, after: [] });
            }
          }
          if (this.#relay && relayed.length > 0) await this.#relay(db, relayed);
        },
        batch.some((item) => item.durable),
      );
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) {
        item.resolve(outcome.value);
        for (const fn of outcome.after) fn();
      } else {
        item.reject(outcome.value);
      }
    });
  }
}
