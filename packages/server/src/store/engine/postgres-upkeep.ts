import { sql, type Kysely } from 'kysely';
import type { Logger } from '../../lib/logger.ts';
import type { DB } from '../schema.ts';

/** The server settings autovacuum needs, as `current_setting` reads them (null: not known). */
export interface UpkeepSettings {
  autovacuum: string | null;
  trackCounts: string | null;
}

/**
 * What an operator is told at start when the PostgreSQL server will not keep the
 * service's tables in shape by itself, or null when it will (or cannot tell).
 *
 * With `autovacuum` off (or `track_counts` off, without which it has nothing to go
 * by), no table is ever analyzed, and none vacuumed but to prevent transaction ID
 * wraparound: the planner knows nothing of any table (a new table's first plans,
 * forever), and every update leaves its old row version and its index entries behind.
 * The service's hot statements keep to their indexes without statistics
 * (store/engine/index-plans.ts, the direct conversation's own key), but its queues' indexes
 * still fill with dead entries that each claim walks, and other plans may not hold: a
 * benchmark on such a server found each carrier receipt reading the whole recipients
 * table (docs/benchmarks.md). Turning it off is the operator's choice (a scheduled
 * `VACUUM (ANALYZE)` instead, say), so the service says so once, and goes on.
 */
export function upkeepWarning(settings: UpkeepSettings): string | null {
  const off = [
    settings.autovacuum === 'off' && 'autovacuum',
    settings.trackCounts === 'off' && 'track_counts',
  ].filter(Boolean);
  if (off.length === 0) return null;
  return (
    `PostgreSQL's ${off.join(' and ')} ${off.length > 1 ? 'are' : 'is'} off: the service's ` +
    'tables are never analyzed nor routinely vacuumed, so plans go without statistics and ' +
    'dead rows pile up in its queues. Turn autovacuum on, or run VACUUM (ANALYZE) on this ' +
    'database regularly (hourly under steady traffic).'
  );
}

/**
 * Reads the server's settings and logs `upkeepWarning`'s, if any. Advice only: a server
 * that cannot say (one compatible with PostgreSQL but without these settings, or a read
 * that fails) is passed over, and the service starts.
 */
export async function warnOfUpkeep(db: Kysely<DB>, logger: Logger): Promise<void> {
  let settings: UpkeepSettings;
  try {
    const { rows } = await sql<UpkeepSettings>`select
      current_setting('autovacuum', true) as "autovacuum",
      current_setting('track_counts', true) as "trackCounts"`.execute(db);
    settings = rows[0]!;
  } catch (error) {
    logger.debug({ err: error }, 'could not read the server settings autovacuum needs');
    return;
  }
  const warning = upkeepWarning(settings);
  if (warning) logger.warn(settings, warning);
}
