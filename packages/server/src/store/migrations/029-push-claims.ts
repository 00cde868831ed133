import type { Kysely } from 'kysely';

/**
 * Web Push claims (docs/behaviour.md#notifications): every instance of the worker role
 * hears each notifiable change, and only the one that records its claim here pushes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('push_claims')
    .addColumn('event_key', 'text', (c) => c.primaryKey())
    .addColumn('claimed_at', 'bigint', (c) => c.notNull())
    .execute();
  // Claims older than a push's life are forgotten in claim order.
  await db.schema.createIndex('push_claims_age').on('push_claims').column('claimed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('push_claims').execute();
}
