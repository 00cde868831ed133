import type { Kysely } from 'kysely';

/**
 * The provider's id of each text received through an HTTP carrier (docs/behaviour.md#http-carriers):
 * Twilio and Telnyx post a callback again when they think it was lost, and the unique key makes
 * the second one change nothing. `ref` is `connection id/provider id`; kept with the message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_refs')
    .addColumn('ref', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_refs').execute();
}
