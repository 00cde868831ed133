import type { Kysely } from 'kysely';
import { engineOf } from '../capabilities.ts';
import { compiled, rowFrom, valuesIn } from '../compiled.ts';
import type { DB } from '../schema.ts';
import { touchConversation } from './conversations.ts';
import {
  insertMessage,
  insertRecipients,
  carrierRefRecording,
  recordCarrierRef,
  MESSAGE_COLUMNS,
  RECIPIENT_COLUMNS,
  type MessageRow,
  type RecipientRow,
} from './messages.ts';
import {
  deleteOutbound,
  enqueueOutbound,
  submissionRemoval,
  OUTBOUND_COLUMNS,
  type OutboundQueueRow,
} from './outbound-queue.ts';

const messageColumns = Object.keys(MESSAGE_COLUMNS) as (keyof MessageRow)[];
const recipientColumns = Object.keys(RECIPIENT_COLUMNS) as (keyof RecipientRow)[];
const outboundColumns = Object.keys(OUTBOUND_COLUMNS) as (keyof OutboundQueueRow)[];

/**
 * A one-to-one send on PostgreSQL in one statement: the message, its recipient and
 * its queued submission are inserted by data-modifying CTEs of the statement that
 * moves the conversation up. The request lane runs one statement per round trip,
 * and these four were half of a send's. (A CTE sees none of the others' rows, which
 * none of them needs; the foreign keys are checked at the end of the statement.)
 */
const storeOneToOneInOneStatement = compiled((db: Kysely<DB>, ...values: unknown[]) => {
  const recipientAt = messageColumns.length;
  const outboundAt = recipientAt + recipientColumns.length;
  const conversationAt = outboundAt + outboundColumns.length;
  return db
    .with('message', (q) => q.insertInto('messages').values(rowFrom(messageColumns, values, 0)))
    .with('recipient', (q) =>
      q.insertInto('message_recipients').values(rowFrom(recipientColumns, values, recipientAt)),
    )
    .with('submission', (q) =>
      q.insertInto('outbound_queue').values(rowFrom(outboundColumns, values, outboundAt)),
    )
    .updateTable('conversations')
    .set({ last_message_at: values[conversationAt + 1] as number })
    .where('id', '=', values[conversationAt] as string);
});

/**
 * Stores a new outbound message: the message, its recipients, a queued submission
 * per recipient, and its conversation moved to the top of the inbox (as read: the
 * business wrote it).
 */
export async function storeOutboundMessage(
  db: Kysely<DB>,
  message: MessageRow,
  recipients: RecipientRow[],
  submissions: OutboundQueueRow[],
): Promise<void> {
  if (recipients.length === 1 && submissions.length === 1 && engineOf(db) === 'postgres') {
    await storeOneToOneInOneStatement(
      db,
      ...valuesIn(message, messageColumns),
      ...valuesIn(recipients[0]!, recipientColumns),
      ...valuesIn(submissions[0]!, outboundColumns),
      message.conversation_id,
      message.created_at,
    );
    return;
  }
  await insertMessage(db, message);
  await insertRecipients(db, recipients);
  await enqueueOutbound(db, submissions);
  await touchConversation(db, message.conversation_id, message.created_at, false);
}

/**
 * On PostgreSQL, a taken submission's removal from the queue is a data-modifying
 * CTE of the statement that records the carrier's reference on its recipient: the
 * dispatcher's settlements run one statement per round trip.
 */
const completeSubmissionInOneStatement = compiled(
  (db: Kysely<DB>, messageId: string, phone: string, carrierRef: string, at: number) =>
    carrierRefRecording(
      db.with('taken', (q) => submissionRemoval(q, messageId, phone)),
      messageId,
      phone,
      carrierRef,
      at,
    ),
);

/**
 * A submission the carrier took: out of the queue, and its reference recorded on the
 * recipient (which needs no read first: a recipient that is gone updates nothing).
 */
export async function completeSubmission(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
  carrierRef: string,
  at: number,
): Promise<void> {
  if (engineOf(db) === 'postgres') {
    await completeSubmissionInOneStatement(db, messageId, phone, carrierRef, at);
    return;
  }
  await deleteOutbound(db, messageId, phone);
  await recordCarrierRef(db, messageId, phone, carrierRef, at);
}
