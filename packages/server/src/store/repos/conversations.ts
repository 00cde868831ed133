import { sql, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';
import { compiled, rowFrom, valuesIn } from '../engine/compiled.ts';
import type { ConversationParticipantsTable, ConversationsTable, DB, Mode } from '../schema.ts';
import { namesNothing } from '../text-limits.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type ConversationRow = Selectable<ConversationsTable>;
export type ParticipantRow = Selectable<ConversationParticipantsTable>;

/** One conversation within its account and mode. */
export function findConversation(scope: Scope, id: string): Promise<ConversationRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return scope.db
    .selectFrom('conversations')
    .selectAll()
    .where('id', '=', id)
    .where(ownedBy(scope))
    .executeTakeFirst();
}

/**
 * A direct thread's key, as the index `conversations_direct_key` (migration 011) holds
 * it: its numbers joined by a space, which none of them contains. Written out the same
 * in the query as in the index, for SQLite, which matches an expression index by its
 * text.
 */
export const DIRECT_KEY = sql<string>`account_id || ' ' || mode || ' ' || account_phone || ' ' || peer_phone`;

/** The key of the direct thread between `accountPhone` and `peerPhone` (see DIRECT_KEY). */
export function directKey(
  accountId: string,
  mode: Mode,
  accountPhone: string,
  peerPhone: string,
): string {
  return `${accountId} ${mode} ${accountPhone} ${peerPhone}`;
}

// Compiled once: every one-to-one send looks its thread up (see store/engine/compiled.ts).
const selectDirectConversation = compiled((db: Kysely<DB>, key: string) =>
  db.selectFrom('conversations').selectAll().where(DIRECT_KEY, '=', key),
);

/**
 * The direct thread between an account number and another number, if it exists. Its key
 * holds the scope's account and mode, so the index finds only the scope's thread.
 */
export async function findDirectConversation(
  scope: Scope,
  accountPhone: string,
  peerPhone: string,
): Promise<ConversationRow | undefined> {
  const key = directKey(scope.accountId, scope.mode, accountPhone, peerPhone);
  return (await selectDirectConversation(scope.db, key))[0];
}

/**
 * Inserts a conversation unless a direct thread with the same numbers exists.
 * `ON CONFLICT DO NOTHING` makes two concurrent first sends agree on one thread. It
 * names no constraint: the numbers are unique twice, by their four columns and by
 * their key's index (DIRECT_KEY), and PostgreSQL yields only on the constraint it is
 * told of. Two inserts that pass that one's check together, each before the other's
 * entry is there, would meet at the other index, and the second would fail.
 */
export async function insertConversationIfAbsent(
  db: Kysely<DB>,
  row: ConversationRow,
): Promise<void> {
  await insertIfAbsent(db, row).execute();
}

/** The insert of `insertConversationIfAbsent`, for the statements built on it. */
function insertIfAbsent(db: QueryCreator<DB>, row: ConversationRow) {
  return db
    .insertInto('conversations')
    .values(row)
    .onConflict((oc) => oc.doNothing());
}

/** Every column of `conversations`, in the order the compiled statements list them. */
const CONVERSATION_COLUMNS = {
  id: true,
  account_id: true,
  mode: true,
  kind: true,
  account_phone: true,
  peer_phone: true,
  created_at: true,
  last_message_at: true,
  unread_count: true,
} as const satisfies Record<keyof ConversationsTable, true>;
const conversationColumns = Object.keys(CONVERSATION_COLUMNS) as (keyof ConversationRow)[];

// Compiled once each: every first message with a number opens its thread.
const insertDirectIfAbsent = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  insertIfAbsent(db, rowFrom(conversationColumns, values)).returningAll(),
);
/**
 * The thread and its participant in one statement on PostgreSQL, where each is a round
 * trip of the request lane: the participant is inserted by a data-modifying CTE from
 * the thread's row, so only where the thread was inserted.
 */
const insertDirectWithParticipantInOneStatement = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  db
    .with('created', (q) => insertIfAbsent(q, rowFrom(conversationColumns, values)).returningAll())
    .with('participant', (q) =>
      q
        .insertInto('conversation_participants')
        .columns(['conversation_id', 'phone', 'active', 'added_at'])
        .expression((eb) =>
          eb
            .selectFrom('created')
            .select([
              'created.id',
              'created.peer_phone',
              sql.lit(1).as('active'),
              'created.created_at',
            ]),
        ),
    )
    .selectFrom('created')
    .selectAll(),
);

/**
 * Opens a direct thread (`row`, whose `peer_phone` becomes its one participant, added at
 * its `created_at`) unless one with the same numbers exists, committed or being
 * committed by a concurrent first message; returns it, or undefined where one existed
 * (the caller reads that one). One statement on PostgreSQL, two on SQLite, where a
 * statement is no round trip.
 */
export async function createDirectConversation(
  db: Kysely<DB>,
  row: ConversationRow,
): Promise<ConversationRow | undefined> {
  const values = valuesIn(row, conversationColumns);
  if (capabilitiesOf(db).roundTrips) {
    return (await insertDirectWithParticipantInOneStatement(db, ...values))[0];
  }
  const [created] = await insertDirectIfAbsent(db, ...values);
  if (created) await upsertParticipants(db, created.id, [row.peer_phone!], row.created_at);
  return created;
}

// Compiled once each: every send and every inbound message moves its thread up.
const touchRead = compiled((db: Kysely<DB>, id: string, at: number) =>
  db.updateTable('conversations').set({ last_message_at: at }).where('id', '=', id),
);
const touchUnread = compiled((db: Kysely<DB>, id: string, at: number) =>
  db
    .updateTable('conversations')
    .set((eb) => ({ last_message_at: at, unread_count: eb('unread_count', '+', 1) }))
    .where('id', '=', id),
);

/** Moves a conversation to the top of the inbox; inbound messages also count as unread. */
export async function touchConversation(
  db: Kysely<DB>,
  id: string,
  at: number,
  unread: boolean,
): Promise<void> {
  await (unread ? touchUnread : touchRead)(db, id, at);
}

/** Participants of a conversation, active ones only unless `all`. */
export function listParticipants(
  db: Kysely<DB>,
  conversationId: string,
  all = false,
): Promise<ParticipantRow[]> {
  let q = db
    .selectFrom('conversation_participants')
    .selectAll()
    .where('conversation_id', '=', conversationId);
  if (!all) q = q.where('active', '=', 1);
  return q.orderBy('added_at', 'asc').orderBy('phone', 'asc').execute();
}

/** Adds (or re-activates) participants. */
export async function upsertParticipants(
  db: Kysely<DB>,
  conversationId: string,
  phones: string[],
  at: number,
): Promise<void> {
  if (phones.length === 0) return;
  await db
    .insertInto('conversation_participants')
    .values(
      phones.map((phone) => ({ conversation_id: conversationId, phone, active: 1, added_at: at })),
    )
    .onConflict((oc) => oc.columns(['conversation_id', 'phone']).doUpdateSet({ active: 1 }))
    .execute();
}

/** Marks participants removed from a conversation's later sends. */
export async function deactivateParticipants(
  db: Kysely<DB>,
  conversationId: string,
  phones: string[],
): Promise<void> {
  if (phones.length === 0) return;
  await db
    .updateTable('conversation_participants')
    .set({ active: 0 })
    .where('conversation_id', '=', conversationId)
    .where('phone', 'in', phones)
    .execute();
}

/** Removes a number from every group conversation of an account and mode (it texted STOP). */
export async function deactivateInAllGroups(scope: Scope, phone: string): Promise<void> {
  await scope.db
    .updateTable('conversation_participants')
    .set({ active: 0 })
    .where('phone', '=', phone)
    .where('conversation_id', 'in', (eb) =>
      eb.selectFrom('conversations').select('id').where(ownedBy(scope)).where('kind', '=', 'group'),
    )
    .execute();
}

/**
 * The conversation an inbound text from `phone` to `accountPhone` belongs to: the
 * most recently active one (direct or group) where that number is an active participant.
 */
export function findLatestConversationWith(
  scope: Scope,
  accountPhone: string,
  phone: string,
): Promise<ConversationRow | undefined> {
  return scope.db
    .selectFrom('conversations')
    .innerJoin(
      'conversation_participants',
      'conversation_participants.conversation_id',
      'conversations.id',
    )
    .selectAll('conversations')
    .where(ownedBy(scope, 'conversations'))
    .where('conversations.account_phone', '=', accountPhone)
    .where('conversation_participants.phone', '=', phone)
    .where('conversation_participants.active', '=', 1)
    .orderBy('conversations.last_message_at', 'desc')
    .orderBy('conversations.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The inbox: conversations newest first (by last message), optionally before a time. */
export function listConversations(
  scope: Scope,
  limit: number,
  before?: number,
): Promise<ConversationRow[]> {
  let q = scope.db.selectFrom('conversations').selectAll().where(ownedBy(scope));
  if (before !== undefined) q = q.where('last_message_at', '<', before);
  return q.orderBy('last_message_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Participants of several conversations at once. */
export function listParticipantsOf(
  db: Kysely<DB>,
  conversationIds: string[],
): Promise<ParticipantRow[]> {
  if (conversationIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('conversation_participants')
    .selectAll()
    .where('conversation_id', 'in', conversationIds)
    .orderBy('added_at', 'asc')
    .orderBy('phone', 'asc')
    .execute();
}

/** Marks a conversation read for the whole team (a shared inbox has one unread state). */
export async function markConversationRead(db: Kysely<DB>, id: string): Promise<void> {
  await db.updateTable('conversations').set({ unread_count: 0 }).where('id', '=', id).execute();
}
