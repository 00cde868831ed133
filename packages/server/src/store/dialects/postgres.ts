import pg from 'pg';
import { PostgresDialect } from 'kysely';

// int8 (bigint) columns hold epoch milliseconds, which fit a double exactly.
// Parsing them as numbers keeps rows identical to SQLite's.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** A connection pool to PostgreSQL with numeric bigints. */
export function openPostgresPool(connectionString: string, max = 10): pg.Pool {
  return new pg.Pool({ connectionString, max, types });
}

/** A Kysely dialect over a pg pool. */
export function postgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool });
}
