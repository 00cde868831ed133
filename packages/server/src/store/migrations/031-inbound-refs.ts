import type { Kysely } from 'kysely';

/**
 * The provider's id of each text received through an HTTP carrier (docs/behaviour.md#http-carriers):
 * Twilio and Telnyx post a callback again when they think it was lost, and the unique key makes
 * the second one change nothing. `ref` is `connection id/provider id`; kept for the retention period, far longer than
 * any provider retries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_refs')
    .addColumn('ref', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The retention sweep forgets refs in age order.
  await db.schema
    .createIndex('inbound_refs_created_at')
    .on('inbound_refs')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_refs').execute();
}
