import { sql, type Kysely } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';

/**
 * On PostgreSQL, the pages of webhook deliveries keep 30 % of their room free. A claim
 * sets only `locked_until`, which no index holds (007), so its update can be heap-only,
 * touching no index, but only where the row's page has room for the new version:
 * inserted in bursts, the pages were packed full, and most claims found none. In a
 * fan-out of 20 000 deliveries 48 000 of the 160 000 updates (a claim and a settlement
 * each) were heap-only before and 77 000 after, and the fan-out went from 62–68 % to
 * 63–77 % of the bare signed-POST loop (docs/benchmarks.md). Pages written before keep
 * their fill until rewritten. SQLite has no such setting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!capabilitiesOf(db).serverUpkeep) return;
  await sql`alter table webhook_deliveries set (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!capabilitiesOf(db).serverUpkeep) return;
  await sql`alter table webhook_deliveries reset (fillfactor)`.execute(db);
}
