import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { fixedQuery, runCompiled } from './compiled.ts';
import { Memo } from './memo.ts';
import type { DB } from '../schema.ts';
import { BACKGROUND_WAIT_MS, BUSY_SHARE } from './write-pacing.ts';
import {
  TransactionAborted,
  type Signal,
  type TransactionRunner,
  type WriteOptions,
  type WriteTx,
  type WriteUnit,
} from './write-tx.ts';

export { TransactionAborted, WRITE_LANES } from './write-tx.ts';
export type {
  Signal,
  TransactionRunner,
  WriteLane,
  WriteOptions,
  WriteTx,
  WriteUnit,
} from './write-tx.ts';
export { BACKGROUND_WAIT_MS, BUSY_SHARE, backgroundRound } from './write-pacing.ts';

// Compiled once: three of these statements wrap every unit, and building them through the
// query builder cost more than running them.
const SAVEPOINT = fixedQuery('savepoint unit');
const RELEASE = fixedQuery('release savepoint unit');
const ROLLBACK_TO = fixedQuery('rollback to savepoint unit');

/** How one unit of a committed batch ended, and what runs once it is durable. */
interface Outcome {
  ok: boolean;
  value: unknown;
  after: (() => void)[];
  /** The signals it published, relayed with the commit (see TransactionRunner). */
  published: Signal[];
}

/** Where an error thrown by after-commit work goes by default: thrown again on its own. */
function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

/** Nothing to do: `sentAll` where the queue does not pipeline. */
function noop(): void {}

/** Thrown inside a batch that runs without savepoints when one of its units fails. */
const ROLLED_BACK = Symbol('a unit failed: the batch runs again, a savepoint per unit');

/** How a WriteQueue runs. */
export interface WriteQueueOptions {
  /**
   * Receives what an after-commit callback or a signal's listener throws. One that
   * throws must not keep the rest of its batch, or the batches after it, from their
   * answers; by default its error is thrown again on its own, as an uncaught exception.
   */
  reportError?: (error: unknown) => void;
  /**
   * A background lane's queue on a connection of its own (PostgreSQL) is paced by the
   * request lane's: while that one is `saturated`, this one's units commit at most once
   * per BACKGROUND_WAIT_MS. Otherwise a queue paces its background units by its own
   * requests' share of the writer (see BACKGROUND_WAIT_MS).
   */
  paceBy?: WriteQueue | null;
  /**
   * The runner's connection sends a statement without waiting for the answer to the one
   * before (PostgreSQL's pipeline mode, store/engine/postgres-lane.ts). A unit that says it
   * has sent all its statements (`tx.sentAll`) then lets the batch go on with the next
   * unit, whose statements the server runs after it, in the order they were sent. A
   * batch of sixteen one-to-one sends took eighteen round trips of ~0.3 ms under load,
   * one statement each; now their statements go out together.
   */
  pipelined?: boolean;
}

interface Pending {
  unit: WriteUnit<unknown>;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** A request's unit, or a background lane's. */
  lane: 'request' | 'background';
  /** Its batch's commit turned out a rollback: it runs again in a savepoint (#runAgainIsolated). */
  isolate?: boolean;
}

/**
 * Most units in one transaction; a bigger burst is split across commits. Small on
 * purpose: a batch is answered only after its log flush (~1 ms on the benchmark
 * machine), and the next batch runs meanwhile, so batches of about a flush's worth
 * of work keep the writer, the disk and the HTTP thread busy at once. A burst of
 * 64 sends run as one batch took ~2 ms, then waited for its flush while the writer
 * idled, then went back to the HTTP thread all at once, which idled meanwhile: the
 * stages took turns. In batches of 16, POST throughput rose 10–15 %.
 */
const MAX_BATCH = 16;

/**
 * Group commit. Units submitted in the same event-loop turn (and while the
 * previous batch runs) share one transaction, and a failing unit rolls back
 * alone: a batch in which one fails runs again with a savepoint per unit.
 * Every caller is answered only once the commit is on disk, so a resolved
 * write is durable.
 *
 * One fsync per request measured ~2.5 k requests/s with a p99 over 100 ms on a
 * 2-core machine; sharing the commit raised that to 9–17 k/s with a p99 under
 * 30 ms. One batch runs its statements at a time; the next one may start while
 * the previous one's log flush is still in flight, and is answered after it.
 * A unit that reads what an earlier batch wrote is therefore answered only
 * after that write is durable too, so nothing acts on a change that could
 * still be lost.
 */
export class WriteQueue {
  /** Units of requests (the `request` lane), in the order they came. */
  #pending: Pending[] = [];
  /** Units of the background lanes, in the order they came. */
  #background: Pending[] = [];
  /**
   * Milliseconds the writer spent on batches with request units, decayed with a
   * time constant of BACKGROUND_WAIT_MS: divided by it, the share of its time
   * requests took lately. Updated at `#workAt`.
   */
  #requestWork = 0;
  #workAt = 0;
  /** When background units last joined a batch (`performance.now()`). */
  #backgroundAt = -Infinity;
  /** Set while a flush waits for the background's next turn. */
  #turnTimer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** Batches committed and waiting for the disk, answered in commit order. */
  #answering: Promise<void> = Promise.resolve();
  #scheduled = false;
  #closed = false;
  readonly #runTransaction: TransactionRunner;
  readonly #signals: EventEmitter;
  readonly #reportError: (error: unknown) => void;
  readonly #memo = new Memo();
  /**
   * Set after a batch in which a unit failed: the next batches run with a savepoint
   * per unit from the start, until one has no failing unit. Failures come in runs
   * (a client retrying a bad request), and each would otherwise cost a batch twice.
   */
  #isolate = false;
  /** When request units last found more of their own waiting than one batch takes. */
  #saturatedAt = -Infinity;
  /** The request lane whose saturation this queue's background units yield to (see constructor). */
  readonly #paceBy: WriteQueue | null;

  /** Whether units may go on before the unit before them is answered (see WriteQueueOptions). */
  readonly #pipelined: boolean;

  constructor(
    runTransaction: TransactionRunner,
    signals: EventEmitter,
    options: WriteQueueOptions = {},
  ) {
    this.#runTransaction = runTransaction;
    this.#signals = signals;
    this.#reportError = options.reportError ?? rethrowLater;
    this.#paceBy = options.paceBy ?? null;
    this.#pipelined = options.pipelined ?? false;
  }

  /** Queues a unit; resolves with its result after its transaction commits. */
  submit<T>(unit: WriteUnit<T>, options: WriteOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    return new Promise<T>((resolve, reject) => {
      const durable = options.durable ?? true;
      const lane =
        options.lane === undefined || options.lane === 'request' ? 'request' : 'background';
      (lane === 'request' ? this.#pending : this.#background).push({
        unit,
        durable,
        resolve: resolve as (v: unknown) => void,
        reject,
        lane,
      });
      this.#schedule();
    });
  }

  /** The share of the writer's time requests took lately, 0 to 1 (see #requestWork). */
  get requestLoad(): number {
    return this.#requestLoad(performance.now());
  }

  /**
   * Whether requests came faster than this queue commits them lately: within the last
   * BACKGROUND_WAIT_MS a batch was taken with more request units left waiting. On
   * PostgreSQL a batch's time is mostly the server's round trips and its commit's
   * flush, so the writer's busy share says little: a trickle of 200 sends a second kept
   * the request lane in a transaction over half the time. Requests left waiting do:
   * a load of 64 connections always leaves some, 200 a second never.
   */
  get saturated(): boolean {
    return performance.now() - this.#saturatedAt < BACKGROUND_WAIT_MS;
  }

  /** Finishes every queued unit, then refuses new ones. */
  async close(): Promise<void> {
    this.#closed = true;
    // A batch whose commit turned out a rollback may come back (#runAgainIsolated).
    do {
      while (this.#running || this.#waiting()) {
        if (this.#running) await this.#running;
        else await this.#flush();
      }
      await this.#answering;
    } while (this.#running || this.#waiting());
    if (this.#turnTimer) clearTimeout(this.#turnTimer);
    this.#turnTimer = null;
  }

  #waiting(): boolean {
    return this.#pending.length > 0 || this.#background.length > 0;
  }

  /** The share of the writer's time requests took lately (see #requestWork). */
  #requestLoad(now: number): number {
    return (
      (this.#requestWork * Math.exp((this.#workAt - now) / BACKGROUND_WAIT_MS)) / BACKGROUND_WAIT_MS
    );
  }

  /** Counts `ms` of writer time spent on a batch with request units. */
  #countRequestWork(ms: number): void {
    const now = performance.now();
    this.#requestWork = this.#requestLoad(now) * BACKGROUND_WAIT_MS + ms;
    this.#workAt = now;
  }

  /**
   * The next batch: every request unit, and the background ones unless requests
   * keep the writer busy and their turn has not come (see BACKGROUND_WAIT_MS).
   */
  #nextBatch(): Pending[] {
    const now = performance.now();
    const batch = this.#pending.splice(0, MAX_BATCH);
    if (this.#pending.length > 0) this.#saturatedAt = now;
    const busy = this.#paceBy ? this.#paceBy.saturated : this.#requestLoad(now) > BUSY_SHARE;
    const turn = now - this.#backgroundAt >= BACKGROUND_WAIT_MS;
    if (
      this.#background.length > 0 &&
      batch.length < MAX_BATCH &&
      (!busy || turn || this.#closed)
    ) {
      batch.push(...this.#background.splice(0, MAX_BATCH - batch.length));
      this.#backgroundAt = now;
    }
    return batch;
  }

  /** Flushes again when the background's turn comes (nothing else would). */
  #awaitBackgroundTurn(): void {
    if (this.#turnTimer) return;
    const at = this.#backgroundAt + BACKGROUND_WAIT_MS;
    this.#turnTimer = setTimeout(
      () => {
        this.#turnTimer = null;
        this.#schedule();
      },
      Math.max(0, at - performance.now()),
    );
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
    if (this.#running || !this.#waiting()) return;
    const batch = this.#nextBatch();
    if (batch.length === 0) {
      this.#awaitBackgroundTurn();
      return;
    }
    const requests = batch[0]!.lane === 'request';
    const started = performance.now();
    this.#running = this.#commit(batch);
    try {
      await this.#running;
    } finally {
      if (requests) this.#countRequestWork(performance.now() - started);
      this.#running = null;
      if (this.#waiting()) this.#schedule();
    }
  }

  /** Runs a batch in one transaction; its units are answered once the commit is on disk. */
  async #commit(batch: Pending[]): Promise<void> {
    const durable = batch.some((item) => item.durable);
    let committed: { outcomes: Outcome[]; onDisk: Promise<void> } | null;
    // A batch with a unit that comes back from a commit that turned out a rollback runs
    // isolated whatever the batches committed meanwhile left in #isolate.
    let isolated = this.#isolate || batch.some((item) => item.isolate);
    try {
      // Most batches have no failing unit, and run without a savepoint per unit:
      // inside one, SQLite copies each page a statement first touches into a
      // sub-journal, which cost 15 % of a send's CPU (155 against 182 µs per
      // request, POST load). When a unit fails, the transaction rolls back whole
      // and the batch runs again with a savepoint per unit, so that unit fails alone.
      committed = isolated ? null : await this.#run(batch, durable, false);
      if (!committed) {
        isolated = true;
        committed = (await this.#run(batch, durable, true))!;
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const { outcomes, onDisk } = committed;
    this.#isolate = outcomes.some((outcome) => !outcome.ok);
    const answer = () =>
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) {
          item.resolve(outcome.value);
          for (const fn of outcome.after) {
            try {
              fn();
            } catch (error) {
              this.#reportError(error);
            }
          }
        } else {
          item.reject(outcome.value);
        }
      });
    // A flush that fails leaves the commit's fate unknown: its units fail, as if
    // the commit had; the ones that failed on their own keep their own error.
    const failAll = (error: unknown) => {
      // A commit the database turned into a rollback after the runner had returned
      // (PostgreSQL sends it and goes on, see TransactionRunner): nothing of the batch
      // was committed, and it runs again isolated, as when the runner throws at once.
      if (error instanceof TransactionAborted && !isolated) {
        this.#runAgainIsolated(batch);
        return;
      }
      batch.forEach((item, i) => item.reject(outcomes[i]!.ok ? error : outcomes[i]!.value));
    };
    const previous = this.#answering;
    this.#answering = Promise.all([previous, onDisk]).then(answer, failAll);
  }

  /** Queues a batch that committed nothing again, ahead of the rest, each unit in a savepoint. */
  #runAgainIsolated(batch: Pending[]): void {
    for (const item of batch) item.isolate = true;
    this.#pending.unshift(...batch.filter((item) => item.lane === 'request'));
    this.#background.unshift(...batch.filter((item) => item.lane === 'background'));
    this.#schedule();
  }

  /**
   * Runs the batch's units in one transaction, each in its own savepoint when
   * `isolated`. Not isolated, the first unit that fails rolls the whole
   * transaction back and this resolves `null`: the caller runs the batch again,
   * isolated. So a unit can run twice, and must touch nothing but `tx` (its
   * `afterCommit` and `publish` calls of a rolled-back run are dropped).
   */
  async #run(
    batch: Pending[],
    durable: boolean,
    isolated: boolean,
  ): Promise<{ outcomes: Outcome[]; onDisk: Promise<void> } | null> {
    const outcomes: Outcome[] = [];
    try {
      const { onDisk } = await this.#runTransaction(async (db) => {
        const shared = new Map<string, unknown>();
        const txFor = (outcome: Outcome, sentAll: () => void): WriteTx => ({
          db,
          afterCommit: (fn) => outcome.after.push(fn),
          publish: (topic, payload) => {
            outcome.published.push({ topic, payload });
            outcome.after.push(() => this.#signals.emit(topic, payload));
          },
          memo: this.#memo,
          shared,
          sentAll,
        });
        outcomes.length = 0;
        for (let i = 0; i < batch.length; i++) {
          outcomes.push({ ok: true, value: undefined, after: [], published: [] });
        }
        if (isolated) await this.#runIsolated(batch, outcomes, db, txFor);
        else if (this.#pipelined) await this.#runPipelined(batch, outcomes, txFor);
        else {
          for (let i = 0; i < batch.length; i++) {
            try {
              outcomes[i]!.value = await batch[i]!.unit(txFor(outcomes[i]!, noop));
            } catch {
              throw ROLLED_BACK;
            }
          }
        }
        return outcomes.flatMap((outcome) => (outcome.ok ? outcome.published : []));
      }, durable);
      return { outcomes, onDisk };
    } catch (error) {
      // A unit that caught a database error and returned left a PostgreSQL transaction
      // aborted, and its commit rolled back instead (units must not; see WriteUnit).
      // The batch runs again isolated, where that unit fails alone.
      if (error === ROLLED_BACK || (!isolated && error instanceof TransactionAborted)) return null;
      throw error;
    }
  }

  /** Each unit in a savepoint of its own: one that fails is undone alone. */
  async #runIsolated(
    batch: Pending[],
    outcomes: Outcome[],
    db: Kysely<DB>,
    txFor: (outcome: Outcome, sentAll: () => void) => WriteTx,
  ): Promise<void> {
    for (const [i, item] of batch.entries()) {
      const outcome = outcomes[i]!;
      await runCompiled(db, SAVEPOINT);
      try {
        outcome.value = await item.unit(txFor(outcome, noop));
        await runCompiled(db, RELEASE);
      } catch (error) {
        await runCompiled(db, ROLLBACK_TO);
        await runCompiled(db, RELEASE);
        Object.assign(outcome, { ok: false, value: error, after: [], published: [] });
      }
    }
  }

  /**
   * Each unit starts once the one before it has sent all its statements (`tx.sentAll`)
   * or ended, so the server runs them in the batch's order; the batch ends when every
   * unit has. The first that fails throws ROLLED_BACK once the units already started
   * have ended (their statements fail with the transaction): the batch runs again,
   * isolated.
   */
  async #runPipelined(
    batch: Pending[],
    outcomes: Outcome[],
    txFor: (outcome: Outcome, sentAll: () => void) => WriteTx,
  ): Promise<void> {
    const ended: Promise<void>[] = [];
    let failed = false;
    for (const [i, item] of batch.entries()) {
      if (failed) break;
      const outcome = outcomes[i]!;
      const { promise: sentAll, resolve: sent } = Promise.withResolvers<void>();
      const end = item.unit(txFor(outcome, sent)).then(
        (value) => {
          outcome.value = value;
        },
        () => {
          failed = true;
        },
      );
      ended.push(end);
      await Promise.race([end, sentAll]);
    }
    await Promise.all(ended);
    if (failed) throw ROLLED_BACK;
  }
}
