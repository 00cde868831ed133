import type { Kysely, Selectable } from 'kysely';
import type {
  ConversationNotesTable,
  ConversationReadsTable,
  ConversationStatesTable,
  DB,
} from '../schema.ts';

export type ConversationStateRow = Selectable<ConversationStatesTable>;
export type ConversationReadRow = Selectable<ConversationReadsTable>;
export type ConversationNoteRow = Selectable<ConversationNotesTable>;

// Every function here takes conversations the caller has already found in its scope
// (findConversation), as listParticipantsOf does: none reads across accounts by itself.

/** The team state of each conversation that has one (the others are open, unassigned). */
export function statesOf(db: Kysely<DB>, ids: string[]): Promise<ConversationStateRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('conversation_states')
    .selectAll()
    .where('conversation_id', 'in', ids)
    .execute();
}

/** Sets a conversation's status and assignee (its row made on first change). */
export async function saveState(db: Kysely<DB>, row: ConversationStateRow): Promise<void> {
  await db
    .insertInto('conversation_states')
    .values(row)
    .onConflict((oc) =>
      oc.column('conversation_id').doUpdateSet({
        status: row.status,
        assignee_id: row.assignee_id,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Reopens a done conversation; its new state when it was done. */
export function reopenIfDone(
  db: Kysely<DB>,
  id: string,
  at: number,
): Promise<ConversationStateRow | undefined> {
  return db
    .updateTable('conversation_states')
    .set({ status: 'open', updated_at: at })
    .where('conversation_id', '=', id)
    .where('status', '=', 'done')
    .returningAll()
    .executeTakeFirst();
}

/** What a user has read of a conversation, if they ever opened it. */
export function findRead(
  db: Kysely<DB>,
  userId: string,
  conversationId: string,
): Promise<ConversationReadRow | undefined> {
  return db
    .selectFrom('conversation_reads')
    .selectAll()
    .where('user_id', '=', userId)
    .where('conversation_id', '=', conversationId)
    .executeTakeFirst();
}

/** Records what a user has read of a conversation, and whether they marked it unread. */
export async function saveRead(db: Kysely<DB>, row: ConversationReadRow): Promise<void> {
  await db
    .insertInto('conversation_reads')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'conversation_id'])
        .doUpdateSet({ read_at: row.read_at, marked_unread: row.marked_unread }),
    )
    .execute();
}

/**
 * A user's unread texts per conversation: inbound messages after what they read, or, for
 * a conversation they never opened, after they joined (a new teammate does not inherit
 * the team's backlog as unread). A conversation marked unread counts at least one.
 */
export async function unreadCountsFor(
  db: Kysely<DB>,
  userId: string,
  joinedAt: number,
  ids: string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (ids.length === 0) return counts;
  const reads = await db
    .selectFrom('conversation_reads')
    .selectAll()
    .where('user_id', '=', userId)
    .where('conversation_id', 'in', ids)
    .execute();
  const readBy = new Map(reads.map((r) => [r.conversation_id, r]));
  const rows = await db
    .selectFrom('messages')
    .leftJoin('conversation_reads', (join) =>
      join
        .onRef('conversation_reads.conversation_id', '=', 'messages.conversation_id')
        .on('conversation_reads.user_id', '=', userId),
    )
    .select(['messages.conversation_id'])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('messages.conversation_id', 'in', ids)
    .where('messages.direction', '=', 'inbound')
    .where((eb) =>
      eb(
        'messages.created_at',
        '>',
        eb.fn.coalesce('conversation_reads.read_at', eb.val(joinedAt)),
      ),
    )
    .groupBy('messages.conversation_id')
    .execute();
  for (const row of rows) counts.set(row.conversation_id, Number(row.n));
  for (const [id, read] of readBy) {
    if (read.marked_unread === 1) counts.set(id, Math.max(1, counts.get(id) ?? 0));
  }
  return counts;
}

/** Stores an internal note. */
export async function insertNote(db: Kysely<DB>, row: ConversationNoteRow): Promise<void> {
  await db.insertInto('conversation_notes').values(row).execute();
}

/** A conversation's latest notes, oldest first. */
export async function listNotes(
  db: Kysely<DB>,
  conversationId: string,
  limit = 200,
): Promise<ConversationNoteRow[]> {
  const rows = await db
    .selectFrom('conversation_notes')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse();
}
