// Stand-ins for the write queue's unit tests: a connection, and transaction runners whose
// disk flushes the test finishes by hand.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/store/schema.ts';
import type { TransactionRunner } from '../../src/store/engine/write-queue.ts';

/** A stand-in connection: savepoint statements succeed and do nothing. */
export const fakeDb = { executeQuery: async () => ({ rows: [] }) } as unknown as Kysely<DB>;

/** A disk flush the test finishes by hand. */
export function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A transaction runner that records each batch's units and hands back a flush
 * the test completes, as the SQLite store's WAL flush would complete later.
 */
export function recordingRunner() {
  const flushes: ReturnType<typeof deferred>[] = [];
  const batches: { durable: boolean }[] = [];
  const runner: TransactionRunner = async (body, durable) => {
    await body(fakeDb);
    batches.push({ durable });
    const flush = deferred();
    flushes.push(flush);
    return { onDisk: flush.promise };
  };
  return { runner, flushes, batches };
}

/** A transaction runner already on disk, recording the names its batches' units `record`. */
export function namingRunner() {
  const batches: string[][] = [];
  let current: string[] = [];
  const runner: TransactionRunner = async (body) => {
    current = [];
    await body(fakeDb);
    batches.push(current);
    return { onDisk: Promise.resolve() };
  };
  return { runner, batches, record: (name: string) => current.push(name) };
}

/** Lets every pending turn and microtask run. */
export async function settle() {
  for (let i = 0; i < 5; i++) await nextTurn();
}
