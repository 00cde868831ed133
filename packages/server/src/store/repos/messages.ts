import type { Kysely, Selectable } from 'kysely';
import { compiledInsert } from '../compiled.ts';
import type { DB, MessageRecipientsTable, MessagesTable, Mode } from '../schema.ts';

export type MessageRow = Selectable<MessagesTable>;
export type RecipientRow = Selectable<MessageRecipientsTable>;

// Compiled once: every send runs these (see store/compiled.ts).
const insertMessageRow = compiledInsert('messages', {
  id: true,
  account_id: true,
  mode: true,
  conversation_id: true,
  direction: true,
  from_phone: true,
  to_json: true,
  is_group: true,
  body: true,
  media_json: true,
  segments: true,
  status: true,
  failure_reason: true,
  sender_name: true,
  contact_id: true,
  created_at: true,
  updated_at: true,
});
const insertRecipientRow = compiledInsert('message_recipients', {
  message_id: true,
  phone: true,
  status: true,
  failure_reason: true,
  carrier_ref: true,
  updated_at: true,
});

/** Inserts a message. */
export async function insertMessage(db: Kysely<DB>, row: MessageRow): Promise<void> {
  await insertMessageRow(db, row);
}

/** Inserts the recipients of an outbound message (all of them in one statement). */
export async function insertRecipients(db: Kysely<DB>, rows: RecipientRow[]): Promise<void> {
  if (rows.length === 1) await insertRecipientRow(db, rows[0]!);
  else if (rows.length > 1) await db.insertInto('message_recipients').values(rows).execute();
}

/** One message within its account and mode. */
export function findMessage(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  id: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .executeTakeFirst();
}

/** One message by id alone (workers, which act for every account). */
export function findMessageById(db: Kysely<DB>, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Several messages by id alone, in no particular order (workers, for a whole batch at once). */
export function findMessagesByIds(db: Kysely<DB>, ids: string[]): Promise<MessageRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('messages').selectAll().where('id', 'in', ids).execute();
}

/** The recipients of a message in a stable order. */
export function listRecipients(db: Kysely<DB>, messageId: string): Promise<RecipientRow[]> {
  return db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('phone', 'asc')
    .execute();
}

/** The recipient row a carrier reference points at. */
export function findRecipientByCarrierRef(
  db: Kysely<DB>,
  carrierRef: string,
): Promise<RecipientRow | undefined> {
  return db
    .selectFrom('message_recipients')
    .selectAll()
    .where('carrier_ref', '=', carrierRef)
    .executeTakeFirst();
}

/** One recipient row. */
export function findRecipient(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
): Promise<RecipientRow | undefined> {
  return db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', messageId)
    .where('phone', '=', phone)
    .executeTakeFirst();
}

/** Writes a recipient's new status (the state machine decided it may change). */
export async function updateRecipient(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
  values: Partial<Pick<RecipientRow, 'status' | 'failure_reason' | 'carrier_ref'>>,
  at: number,
): Promise<void> {
  await db
    .updateTable('message_recipients')
    .set({ ...values, updated_at: at })
    .where('message_id', '=', messageId)
    .where('phone', '=', phone)
    .execute();
}

/** Writes a message's overall status. */
export async function updateMessageStatus(
  db: Kysely<DB>,
  id: string,
  status: MessageRow['status'],
  failureReason: string | null,
  at: number,
): Promise<void> {
  await db
    .updateTable('messages')
    .set({ status, failure_reason: failureReason, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Messages of a conversation, oldest first, up to `limit` before an id (for history pages). */
export function listConversationMessages(
  db: Kysely<DB>,
  conversationId: string,
  limit: number,
  beforeId?: string,
): Promise<MessageRow[]> {
  let q = db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId);
  if (beforeId) q = q.where('id', '<', beforeId);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** The newest message of each of several conversations. */
export function lastMessagesOf(db: Kysely<DB>, conversationIds: string[]): Promise<MessageRow[]> {
  if (conversationIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('messages')
    .selectAll()
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('messages')
        .select((e) => e.fn.max('id').as('id'))
        .where('conversation_id', 'in', conversationIds)
        .groupBy('conversation_id'),
    )
    .execute();
}

/** Recipients of several messages at once. */
export function listRecipientsOf(db: Kysely<DB>, messageIds: string[]): Promise<RecipientRow[]> {
  if (messageIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', 'in', messageIds)
    .orderBy('phone', 'asc')
    .execute();
}
