import { sql, type Kysely, type Selectable } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';
import { withIndexedPlans } from '../engine/index-plans.ts';
import { compiled, compiledInsert, compiledInsertRows, compiledSql } from '../engine/compiled.ts';
import type { DB, MessageRecipientsTable, MessagesTable, Mode } from '../schema.ts';
import { namesNothing } from '../text-limits.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type MessageRow = Selectable<MessagesTable>;
export type RecipientRow = Selectable<MessageRecipientsTable>;

/** Every column of `messages`, in the order the compiled inserts list them. */
export const MESSAGE_COLUMNS = {
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
  auto_reply: true,
  created_at: true,
  updated_at: true,
} as const satisfies Record<keyof MessagesTable, true>;
/** Every column of `message_recipients`. */
export const RECIPIENT_COLUMNS = {
  message_id: true,
  phone: true,
  status: true,
  failure_reason: true,
  carrier_ref: true,
  updated_at: true,
  run_at: true,
  attempts: true,
  last_error: true,
} as const satisfies Record<keyof MessageRecipientsTable, true>;

// Compiled once: every send runs these (see store/engine/compiled.ts).
const insertMessageRow = compiledInsert('messages', MESSAGE_COLUMNS);
const insertRecipientRows = compiledInsertRows('message_recipients', RECIPIENT_COLUMNS);

/** Inserts a message. */
export async function insertMessage(db: Kysely<DB>, row: MessageRow): Promise<void> {
  await insertMessageRow(db, row);
}

/** Inserts the recipients of an outbound message (all of them in one statement). */
export async function insertRecipients(db: Kysely<DB>, rows: RecipientRow[]): Promise<void> {
  await insertRecipientRows(db, rows);
}

// Compiled once: `GET /v1/messages/{id}` runs it for every request.
const selectMessage = compiled((db: Kysely<DB>, accountId: string, mode: Mode, id: string) =>
  db.selectFrom('messages').selectAll().where('id', '=', id).where(ownedBy({ accountId, mode })),
);

/** One message within its account and mode. */
export async function findMessage(scope: Scope, id: string): Promise<MessageRow | undefined> {
  if (namesNothing(id)) return undefined;
  return (await selectMessage(scope.db, scope.accountId, scope.mode, id))[0];
}

// Compiled once: the carrier side runs these for every receipt (see store/engine/compiled.ts).
const selectRecipients = compiled((db: Kysely<DB>, messageId: string) =>
  db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('phone', 'asc'),
);
const selectRecipient = compiled((db: Kysely<DB>, messageId: string, phone: string) =>
  db
    .selectFrom('message_recipients')
    .selectAll()
    .where('message_id', '=', messageId)
    .where('phone', '=', phone),
);
/**
 * Whether other transactions may write while one on `db` runs: on PostgreSQL other
 * lanes and instances commit concurrently, so a row read before a lock may be stale.
 * A SQLite write transaction excludes every other writer until it ends.
 */
export function writesConcurrently(db: Kysely<DB>): boolean {
  return capabilitiesOf(db).concurrentWriters;
}

const selectMessageForUpdate = compiled((db: Kysely<DB>, id: string) => {
  const query = db.selectFrom('messages').selectAll().where('id', '=', id);
  return writesConcurrently(db) ? query.forUpdate() : query;
});

/**
 * One message by id, locked until the transaction ends where writers run
 * concurrently, so changes to it and its recipients happen one transaction at a time.
 */
export async function lockMessageById(db: Kysely<DB>, id: string): Promise<MessageRow | undefined> {
  return (await selectMessageForUpdate(db, id))[0];
}

/**
 * The messages of a list of ids on PostgreSQL: one array parameter, not an `in` list of
 * as many parameters as ids, which Kysely built again at every dispatcher round and
 * PostgreSQL parsed and planned as a new statement for each length. Planned for its
 * list at each call, not prepared by name, as `findEventsByIds` is.
 */
const messagesByIdsOnPostgres = compiledSql(
  (ids: unknown) => sql<MessageRow>`select * from "messages" where "id" = any(${ids}::text[])`,
  { planEachCall: true },
);

/**
 * Several messages by id alone, in no particular order (workers, for a whole batch at
 * once), in a transaction: on PostgreSQL by index for its rest (see withIndexedPlans).
 */
export function findMessagesByIds(db: Kysely<DB>, ids: string[]): Promise<MessageRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  if (capabilitiesOf(db).roundTrips) {
    return withIndexedPlans(db, () => messagesByIdsOnPostgres(db, ids));
  }
  return db.selectFrom('messages').selectAll().where('id', 'in', ids).execute();
}

/** The recipients of a message in a stable order. */
export function listRecipients(db: Kysely<DB>, messageId: string): Promise<RecipientRow[]> {
  return selectRecipients(db, messageId);
}

/**
 * The recipients carrier references point at, each with its message, in one
 * statement for a whole batch of receipts (SQLite). The references are one
 * parameter, a JSON array read by `json_each`. The recipient's columns are renamed
 * apart from the message's (`r_…`).
 */
const selectRecipientsWithMessages = compiled((db: Kysely<DB>, references: string) =>
  db
    .selectFrom('message_recipients as r')
    .innerJoin('messages as m', 'm.id', 'r.message_id')
    .selectAll('m')
    .select([
      'r.message_id as r_message_id',
      'r.phone as r_phone',
      'r.status as r_status',
      'r.failure_reason as r_failure_reason',
      'r.carrier_ref as r_carrier_ref',
      'r.updated_at as r_updated_at',
      'r.run_at as r_run_at',
      'r.attempts as r_attempts',
      'r.last_error as r_last_error',
    ])
    .where('r.carrier_ref', 'in', (eb) =>
      eb.selectFrom(sql<{ value: string }>`json_each(${references})`.as('j')).select('j.value'),
    ),
);

/**
 * The same on PostgreSQL, in two statements that each look one table up by an
 * index, whatever the planner knows of the tables. Joined in one, the planner
 * hash-joined the recipients found with every message read from the table: it
 * takes the references of an array to match thousands of rows until the table
 * has been analyzed (which autovacuum does long after a burst), 12 ms for 50
 * receipts at 15,000 messages, and growing with the table. Alone, each still read its
 * whole table while it held no statistics; they run under withIndexedPlans. Arrays are
 * planned for each call (see ShapeOptions). The messages are locked (as lockMessageById) in id
 * order, so two instances locking overlapping batches cannot deadlock.
 */
const selectRecipientsByReference = compiled(
  (db: Kysely<DB>, references: string[]) =>
    db
      .selectFrom('message_recipients')
      .selectAll()
      .where(sql<boolean>`carrier_ref = any(${references})`),
  { planEachCall: true },
);
const selectMessagesForUpdate = compiled(
  (db: Kysely<DB>, ids: string[]) =>
    db
      .selectFrom('messages')
      .selectAll()
      .where(sql<boolean>`id = any(${ids})`)
      .orderBy('id')
      .forUpdate(),
  { planEachCall: true },
);

/**
 * The recipients `carrierRefs` point at, by reference, each with its message (one
 * object per message, shared by its recipients), the messages locked until the
 * transaction ends where writers run concurrently (see lockMessageById). A
 * recipient is as read before the lock was granted: transitionRecipient's update
 * checks it. References that point at nothing are absent from the map.
 */
export async function findRecipientsLockingMessages(
  db: Kysely<DB>,
  carrierRefs: readonly string[],
): Promise<Map<string, { recipient: RecipientRow; message: MessageRow }>> {
  const found = new Map<string, { recipient: RecipientRow; message: MessageRow }>();
  if (carrierRefs.length === 0) return found;
  if (writesConcurrently(db)) {
    const recipients = await withIndexedPlans(db, () =>
      selectRecipientsByReference(db, [...carrierRefs]),
    );
    if (recipients.length === 0) return found;
    const ids = [...new Set(recipients.map((r) => r.message_id))];
    const messages = new Map((await selectMessagesForUpdate(db, ids)).map((m) => [m.id, m]));
    for (const recipient of recipients) {
      const message = messages.get(recipient.message_id);
      if (message) found.set(recipient.carrier_ref!, { recipient, message });
    }
    return found;
  }
  const rows = await selectRecipientsWithMessages(db, JSON.stringify(carrierRefs));
  const messages = new Map<string, MessageRow>();
  for (const row of rows) {
    const {
      r_message_id,
      r_phone,
      r_status,
      r_failure_reason,
      r_carrier_ref,
      r_updated_at,
      r_run_at,
      r_attempts,
      r_last_error,
      ...m
    } = row;
    let message = messages.get(m.id);
    if (!message) messages.set(m.id, (message = m));
    found.set(r_carrier_ref!, {
      recipient: {
        message_id: r_message_id,
        phone: r_phone,
        status: r_status,
        failure_reason: r_failure_reason,
        carrier_ref: r_carrier_ref,
        updated_at: r_updated_at,
        run_at: r_run_at,
        attempts: r_attempts,
        last_error: r_last_error,
      },
      message,
    });
  }
  return found;
}

/** One recipient row. */
export async function findRecipient(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
): Promise<RecipientRow | undefined> {
  return (await selectRecipient(db, messageId, phone))[0];
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
