import { sql, type Kysely } from 'kysely';
import { engineOf } from '../capabilities.ts';

/**
 * The deliveries due, apart: a row in `webhook_due` for each pending delivery, with
 * its endpoint and its next time, and the claims' index on them. A delivery's
 * settlement no longer changes a column any index of `webhook_deliveries` holds
 * (`status` and `next_attempt_at` left the due index with it), so on PostgreSQL it
 * is a heap-only update, and its due row is deleted (or moved, for a retry). Before,
 * each settlement wrote a new entry into each of the table's four indexes: the
 * claims and settlements of 20 000 deliveries took PostgreSQL 1.9–2.0 s, and with
 * the due rows apart 0.77–0.86 s (docs/benchmarks.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_due')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .execute();
  if (engineOf(db) === 'postgres') {
    // Byte order, as the deliveries' ids (005): compared with a column of another collation,
    // a key could not be looked up by either side's index.
    await sql`alter table webhook_due
      alter column delivery_id type text collate "C",
      alter column endpoint_id type text collate "C"`.execute(db);
  }
  await db.schema
    .createIndex('webhook_due_next')
    .on('webhook_due')
    .columns(['next_attempt_at', 'endpoint_id'])
    .execute();
  await sql`insert into webhook_due (delivery_id, endpoint_id, next_attempt_at)
    select id, endpoint_id, next_attempt_at from webhook_deliveries where status = 'pending'`.execute(
    db,
  );
  await db.schema.dropIndex('webhook_deliveries_due_endpoint').execute();
  // Deleted at every settlement: on PostgreSQL its pages keep room, as the deliveries' do (010).
  if (engineOf(db) === 'postgres') {
    await sql`alter table webhook_due set (fillfactor = 70)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_due_endpoint')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at', 'endpoint_id'])
    .execute();
  await db.schema.dropTable('webhook_due').execute();
}
