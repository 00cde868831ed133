import type { Kysely } from 'kysely';

/**
 * The team's workflow on a shared inbox (docs/behaviour.md#team-workflow): whether a
 * conversation is open or done and who it is assigned to, what each user has read, and
 * internal notes. Kept beside `conversations`, not in it, so the hot paths that insert
 * conversations do not change; a conversation without a row is open and unassigned.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conversation_states')
    .addColumn('conversation_id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('assignee_id', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('conversation_reads')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    // Inbound texts created after this count as unread for the user.
    .addColumn('read_at', 'bigint', (c) => c.notNull())
    // 1 while the user has marked it unread, whatever came since.
    .addColumn('marked_unread', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('conversation_reads_pk', ['user_id', 'conversation_id'])
    .execute();
  await db.schema
    .createTable('conversation_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    /** JSON array of the mentioned users' ids. */
    .addColumn('mentions_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('conversation_notes_conversation')
    .on('conversation_notes')
    .columns(['conversation_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('conversation_notes').execute();
  await db.schema.dropTable('conversation_reads').execute();
  await db.schema.dropTable('conversation_states').execute();
}
