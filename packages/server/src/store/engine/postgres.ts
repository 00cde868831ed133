import pg from 'pg';
import { PostgresDialect } from 'kysely';
import { preparedName } from './compiled.ts';

// int8 (bigint) columns hold epoch milliseconds, which fit a double exactly.
// Parsing them as numbers keeps rows identical to SQLite's.
const INT8_OID = 20;
export const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** What PostgreSQL says when a prepared plan no longer fits the table (a migration since). */
const CACHED_PLAN_CHANGED = '0A000';

/**
 * Sends the fixed shapes of `store/engine/compiled.ts` as named prepared statements:
 * each connection parses and plans them once instead of at every call. The
 * write lanes run one statement per round trip, so the server's parse and plan
 * were a large share of every send's and receipt's time. Any other query goes
 * as before.
 *
 * A plan that a migration run by another instance has invalidated fails once
 * (`cached plan must not change result type`); the connection then prepares its
 * statements again under new names, and retries the query (outside a
 * transaction that succeeds; inside one, the unit fails once, as on any error).
 */
export function prepareFixedShapes(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let generation = 0;
  const named = (text: string, values: unknown[], name: string): Promise<unknown> =>
    query({ name: `${name}_${generation}`, text, values });
  (client as unknown as { query: unknown }).query = (text: unknown, values?: unknown) => {
    const name = typeof text === 'string' && Array.isArray(values) ? preparedName(text) : undefined;
    if (!name) return values === undefined ? query(text) : query(text, values);
    return named(text as string, values as unknown[], name).catch((error: { code?: string }) => {
      if (error.code !== CACHED_PLAN_CHANGED) throw error;
      generation++;
      return named(text as string, values as unknown[], name);
    });
  };
}

/** A connection pool to PostgreSQL with numeric bigints. */
export function openPostgresPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, types });
  pool.on('connect', prepareFixedShapes);
  return pool;
}

/** A Kysely dialect over a pg pool. */
export function postgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool });
}
