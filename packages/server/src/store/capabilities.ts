import { PostgresAdapter, type Kysely } from 'kysely';

/** The engine behind the store. */
export type Engine = 'sqlite' | 'postgres';

/**
 * What differs between the engines, as flags, so code asks `capabilities.skipLocked`
 * instead of scattering `if (engine === 'sqlite')`.
 */
export interface Capabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` lets several workers claim rows concurrently. */
  skipLocked: boolean;
}

/** The capabilities of each engine. */
export const CAPABILITIES: Record<Engine, Capabilities> = {
  sqlite: { skipLocked: false },
  postgres: { skipLocked: true },
};

/**
 * The engine a Kysely instance runs on, from its adapter: for repo functions, which
 * get only `db` (a transaction's or the store's).
 */
export function engineOf<T>(db: Kysely<T>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
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
