import { sql, type Kysely } from 'kysely';

/**
 * A direct thread is looked up by one expression, its numbers joined
 * (`directKey` in store/repos/conversations.ts), which only this index holds.
 *
 * Looked up by its four columns, the thread had two indexes to choose from: the
 * unique one on all four, and the inbox's, which starts with two of them (account
 * and mode). Without statistics for the table (a new one, or on a server whose
 * autovacuum is off) PostgreSQL judged both to find one row and took the inbox's,
 * then read every conversation of the account to find the one: 1 750 rows for each
 * first send to a new number in the bench, twice per send (before and after its
 * insert), and more as the account grows. An expression no other index holds leaves
 * the planner one choice, whatever it knows of the table; SQLite takes the same
 * index for the same expression. The constraint on the four columns stays (an
 * insert's `ON CONFLICT DO NOTHING` yields to either). A group's key is null (its
 * `peer_phone` is), and nulls never collide.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index conversations_direct_key on conversations
    ((account_id || ' ' || mode || ' ' || account_phone || ' ' || peer_phone))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('conversations_direct_key').execute();
}
