import type { Kysely } from 'kysely';

/**
 * Marks the platform's own replies to a keyword (the STOP and START confirmations, the
 * HELP reply): an opt-out never blocks them (docs/behaviour.md#opt-out), while every other
 * message to a number that opted out before it was submitted fails as `opted_out` (the
 * dispatcher, recipientsOptedOut). A mark, not the inbox's "Auto-reply" attribution,
 * which is a label any API caller may also give a send.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('messages')
    .addColumn('auto_reply', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('auto_reply').execute();
}
