import type { Kysely } from 'kysely';
import type { Memo } from './memo.ts';
import type { DB } from '../schema.ts';

// The contract between a unit of work and the write queue that commits it
// (write-queue.ts), and the runners that give it a transaction (sqlite.ts, postgres-lane.ts).

/** What a unit of work gets inside the shared transaction. */
export interface WriteTx {
  /** The open transaction. Every statement of the unit runs on it. */
  db: Kysely<DB>;
  /** Runs `fn` once the transaction is durable (wake workers, push to clients). */
  afterCommit(fn: () => void): void;
  /**
   * Emits `topic` on the store's signals once the transaction is durable; on
   * PostgreSQL also in every other process sharing the database (store/engine/postgres-lane.ts).
   */
  publish(topic: string, payload: unknown): void;
  /**
   * A cache that lives as long as the store, for facts that never change once
   * committed (which account holds a number). Fill it from `afterCommit`, so a
   * rolled-back read never lands in it.
   */
  memo: Memo;
  /**
   * Facts read in this transaction that stay true for the rest of it, shared by the
   * units of its batch (an API key found valid): no other writer can commit until it
   * ends. A unit that changes such a fact drops it.
   */
  shared: Map<string, unknown>;
  /**
   * The unit has sent its last statement, and sends none from now on: on a queue
   * that pipelines (PostgreSQL's lanes, see WriteQueueOptions.pipelined) the batch
   * goes on with its next unit while this one waits for its answers, so their
   * statements travel together instead of a round trip each. Only the code that
   * owns the whole unit may say so (a command run by the registry, not one that
   * another command calls and writes after); elsewhere it changes nothing.
   */
  sentAll(): void;
}

/**
 * A unit of work: its statements commit together, or not at all. It may run
 * more than once (when another unit of its batch fails, see WriteQueue), so it
 * acts only through `tx`: its statements, `afterCommit` and `publish`. A
 * database error must leave the unit (rethrow it): on PostgreSQL the
 * transaction is aborted from then on.
 */
export type WriteUnit<T> = (tx: WriteTx) => Promise<T>;

/** A signal as `tx.publish` made it. */
export interface Signal {
  topic: string;
  payload: unknown;
}

/**
 * Runs `body` inside one database transaction and resolves once its commit is
 * under way, with `onDisk`, which resolves once the commit is durable: on SQLite
 * the commit is done and `onDisk` is a flush of the log (store/engine/sqlite-wal-sync.ts);
 * on PostgreSQL the commit is sent, and `onDisk` is its answer, which waited for
 * the disk (the next batch's statements follow it down the connection meanwhile,
 * store/engine/postgres-lane.ts). `durable: false` may skip the flush (see `WriteOptions`).
 *
 * `body` resolves with the signals its committed units published, in order: a
 * runner whose database other processes share sends them with the commit, so that
 * they hear of it (PostgreSQL NOTIFY, store/engine/postgres-lane.ts). A runner whose
 * database rolled the transaction back at its commit, because a statement had
 * failed and a unit had swallowed the error, throws `TransactionAborted`, or
 * rejects `onDisk` with it: the batch runs again, a savepoint per unit.
 */
export type TransactionRunner = (
  body: (db: Kysely<DB>) => Promise<Signal[]>,
  durable: boolean,
) => Promise<{ onDisk: Promise<void> }>;

/**
 * The database ended a transaction with a rollback instead of the commit asked for:
 * one of its statements had failed (PostgreSQL then refuses every statement but a
 * rollback), and a unit went on as if it had not (see WriteUnit).
 */
export class TransactionAborted extends Error {
  constructor() {
    super('The database rolled the transaction back: one of its statements had failed.');
    this.name = 'TransactionAborted';
  }
}

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
  /**
   * Which connection commits the unit on PostgreSQL: `carrier` for the carrier
   * side's units (the dispatcher's and the receipts'), `webhooks` for webhook
   * delivery's (`onLane` in store.ts gives each worker a
   * store that sets it). Each lane commits on its own connection,
   * so a request never waits behind a worker's batch of a few hundred receipts,
   * each statement a round trip, nor a delivered webhook behind the receipts of
   * other messages (see docs/benchmarks.md). SQLite has one writer: every lane
   * shares its queue. Default `request`.
   */
  lane?: WriteLane;
}

/** The write lanes: one transaction at a time each, on its own connection on PostgreSQL. */
export const WRITE_LANES = ['request', 'carrier', 'webhooks'] as const;
export type WriteLane = (typeof WRITE_LANES)[number];
