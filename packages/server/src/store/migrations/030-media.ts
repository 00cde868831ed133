import type { Kysely } from 'kysely';

/**
 * Media received with inbound MMS, kept in the database so every instance can serve them
 * (docs/behaviour.md#media): providers' own URLs expire. The bytes are base64 text, the one
 * column type both engines store alike; ids are time-ordered, so the retention sweep finds
 * old ones on the primary key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('media')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('media').execute();
}
