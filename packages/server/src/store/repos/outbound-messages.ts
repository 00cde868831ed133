import type { Kysely } from 'kysely';
import { engineOf } from '../capabilities.ts';
import { compiled, rowFrom, valuesIn } from '../compiled.ts';
import type { DB } from '../schema.ts';
import { touchConversation } from './conversations.ts';
import {
  insertMessage,
  insertRecipients,
  MESSAGE_COLUMNS,
  RECIPIENT_COLUMNS,
  type MessageRow,
  type RecipientRow,
} from './messages.ts';

const messageColumns = Object.keys(MESSAGE_COLUMNS) as (keyof MessageRow)[];
const recipientColumns = Object.keys(RECIPIENT_COLUMNS) as (keyof RecipientRow)[];

/**
 * A one-to-one send on PostgreSQL in one statement: the message and its recipient
 * (which is its queued submission) are inserted by data-modifying CTEs of the
 * statement that moves the conversation up. The request lane runs one statement
 * per round trip, and these three were most of a send's. (A CTE sees none of the
 * others' rows, which none of them needs; the foreign keys are checked at the end
 * of the statement.)
 */
const storeOneToOneInOneStatement = compiled((db: Kysely<DB>, ...values: unknown[]) => {
  const recipientAt = messageColumns.length;
  const conversationAt = recipientAt + recipientColumns.length;
  return db
    .with('message', (q) => q.insertInto('messages').values(rowFrom(messageColumns, values, 0)))
    .with('recipient', (q) =>
      q.insertInto('message_recipients').values(rowFrom(recipientColumns, values, recipientAt)),
    )
    .updateTable('conversations')
    .set({ last_message_at: values[conversationAt + 1] as number })
    .where('id', '=', values[conversationAt] as string);
});

/**
 * Stores a new outbound message: the message, its recipients (each a submission
 * due now), and its conversation moved to the top of the inbox (as read: the
 * business wrote it).
 */
export async function storeOutboundMessage(
  db: Kysely<DB>,
  message: MessageRow,
  recipients: RecipientRow[],
): Promise<void> {
  if (recipients.length === 1 && engineOf(db) === 'postgres') {
    await storeOneToOneInOneStatement(
      db,
      ...valuesIn(message, messageColumns),
      ...valuesIn(recipients[0]!, recipientColumns),
      message.conversation_id,
      message.created_at,
    );
    return;
  }
  await insertMessage(db, message);
  await insertRecipients(db, recipients);
  await touchConversation(db, message.conversation_id, message.created_at, false);
}
