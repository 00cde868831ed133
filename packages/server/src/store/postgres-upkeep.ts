import { sql, type Kysely } from 'kysely';
import type { Logger } from '../lib/logger.ts';
import type { DB } from './schema.ts';

/**
 * What an operator is told at start when the PostgreSQL server will not keep the
 * service's tables in shape by itself, or null when it will.
 *
 * With `autovacuum` off, no table is ever analyzed or vacuumed: the planner knows nothing
 * of any table (a new table's first plans, forever), and every update leaves its old row
 * version and its index entries behind. The service's hot statements keep to their
 * indexes without statistics (store/index-plans.ts, the direct conversation's own key),
 * but its queues' indexes still fill with dead entries that each claim walks, and other
 * plans may not hold: a benchmark on such a server found each carrier receipt reading the
 * whole recipients table (docs/benchmarks.md). Turning it off is the operator's choice (a
 * scheduled `VACUUM (ANALYZE)` instead, say), so the service says so once, and goes on.
 */
export function upkeepWarning(autovacuum: string): string | null {
  if (autovacuum === 'on') return null;
  return (
    "PostgreSQL's autovacuum is off: the service's tables are never analyzed nor vacuumed, " +
    'so plans go without statistics and dead rows pile up in its queues. Turn autovacuum on, ' +
    'or run VACUUM (ANALYZE) on this database regularly (hourly under steady traffic).'
  );
}

/** Reads the server's `autovacuum` setting and logs `upkeepWarning`'s, if any. */
export async function warnOfUpkeep(db: Kysely<DB>, logger: Logger): Promise<void> {
  const { rows } = await sql<{
    autovacuum: string;
  }>`select current_setting('autovacuum') as autovacuum`.execute(db);
  const warning = upkeepWarning(rows[0]!.autovacuum);
  if (warning) logger.warn({ autovacuum: rows[0]!.autovacuum }, warning);
}
