import type { Kysely } from 'kysely';

/**
 * The retention sweep (workers/retention-sweep.ts) takes expired idempotency records
 * and sessions oldest first, a small batch at a time: without these indexes each
 * batch would read the whole table to find its few rows. Events need none: their
 * ids are time-ordered, so the primary key finds the old ones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sessions_expires').execute();
  await db.schema.dropIndex('idempotency_keys_created').execute();
}
