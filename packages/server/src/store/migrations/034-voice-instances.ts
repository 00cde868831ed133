import type { Kysely } from 'kysely';

/**
 * The instances running voice (docs/architecture.md, voice): each announces where its Kamailio
 * takes SIP from its peers, every few seconds, so an inbound call also rings the softphones
 * registered with the others. A row unseen for 30 s is ignored and removed; an instance's row
 * also tells the open-call sweep that its run is alive (commands/sweep-open-calls.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('voice_instances')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('sip_address', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('voice_instances').execute();
}
