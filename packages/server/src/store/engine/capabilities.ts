import { PostgresAdapter, type Kysely, type SelectQueryBuilder } from 'kysely';

/** The engine behind the store: a name for logs and `/health`, never a branch outside engine/. */
export type Engine = 'sqlite' | 'postgres';

/**
 * What differs between the engines, as flags named for what they mean, so repositories ask
 * `capabilitiesOf(db).roundTrips` and never which engine runs. A third engine sets its own.
 */
export interface Capabilities {
  /**
   * Other transactions (lanes, instances) commit while one runs: claims lock the rows they
   * take and skip those another holds, a read meant to stand until the commit holds its
   * rows, and a row read before its lock may be stale. SQLite has one writer: nothing runs
   * in between.
   */
  concurrentWriters: boolean;
  /**
   * Each statement is a round trip to a server, so work over many rows folds into one
   * statement (array parameters, CTEs). On SQLite a statement is a call into the library
   * and plain statements are as fast (docs/benchmarks.md).
   */
  roundTrips: boolean;
  /**
   * Tables take storage parameters (fillfactor) and the server keeps them by autovacuum,
   * whose settings are checked at start (postgres-upkeep.ts).
   */
  serverUpkeep: boolean;
  /**
   * Several instances may serve from one database, and a commit's signals reach them all
   * (postgres-signal-relay.ts). A SQLite file is served by one process.
   */
  sharedByInstances: boolean;
}

/** The capabilities of each engine. */
export const CAPABILITIES: Record<Engine, Capabilities> = {
  sqlite: {
    concurrentWriters: false,
    roundTrips: false,
    serverUpkeep: false,
    sharedByInstances: false,
  },
  postgres: {
    concurrentWriters: true,
    roundTrips: true,
    serverUpkeep: true,
    sharedByInstances: true,
  },
};

/**
 * The engine a Kysely instance runs on, from its adapter: for code that gets only `db` (a
 * transaction's or the store's). Only engine/ asks; everything else asks capabilitiesOf.
 */
export function engineOf<T>(db: Kysely<T>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** What the engine behind `db` can do. */
export function capabilitiesOf<T>(db: Kysely<T>): Capabilities {
  return CAPABILITIES[engineOf(db)];
}

/**
 * `query` as a claim: where writers run concurrently it locks the rows it finds and skips
 * those another claim holds (`FOR UPDATE SKIP LOCKED`); with one writer it is as it is.
 */
export function claiming<D, T extends keyof D, O>(
  db: Kysely<D>,
  query: SelectQueryBuilder<D, T, O>,
): SelectQueryBuilder<D, T, O> {
  return capabilitiesOf(db).concurrentWriters ? query.forUpdate().skipLocked() : query;
}

/**
 * `query` holding what it reads until the commit (`FOR KEY SHARE`: no other transaction
 * removes those rows meanwhile); with one writer nothing runs in between.
 */
export function holdingUntilCommit<D, T extends keyof D, O>(
  db: Kysely<D>,
  query: SelectQueryBuilder<D, T, O>,
): SelectQueryBuilder<D, T, O> {
  return capabilitiesOf(db).concurrentWriters ? query.forKeyShare() : query;
}

/** True when `error` is a unique or primary-key violation, in either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (e.code === '23505') return true; // PostgreSQL unique_violation
  // SQLite extended codes: 2067 SQLITE_CONSTRAINT_UNIQUE, 1555 SQLITE_CONSTRAINT_PRIMARYKEY.
  if (e.errcode === 2067 || e.errcode === 1555) return true;
  return typeof e.message === 'string' && e.message.includes('UNIQUE constraint failed');
}
