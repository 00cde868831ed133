import type { Kysely } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';
import { compiled, rowFrom, valuesIn } from '../engine/compiled.ts';
import type { DB } from '../schema.ts';
import { touchConversation } from './conversations.ts';
import { optedOutAmong } from './opt-outs.ts';
import {
  insertMessage,
  insertRecipients,
  MESSAGE_COLUMNS,
  RECIPIENT_COLUMNS,
  type MessageRow,
  type RecipientRow,
} from './messages.ts';
import { ownedBy, scoped } from '../scope.ts';

const messageColumns = Object.keys(MESSAGE_COLUMNS) as (keyof MessageRow)[];
const recipientColumns = Object.keys(RECIPIENT_COLUMNS) as (keyof RecipientRow)[];

/** Where the values of a one-to-one store start: the message's, its recipient's, then its thread's. */
const recipientAt = messageColumns.length;
const conversationAt = recipientAt + recipientColumns.length;

/**
 * A one-to-one send on PostgreSQL in one statement: the message and its recipient
 * (which is its queued submission) are inserted by data-modifying CTEs of the
 * statement that moves the conversation up. The request lane runs one statement
 * per round trip, and these three were most of a send's. (A CTE sees none of the
 * others' rows, which none of them needs; the foreign keys are checked at the end
 * of the statement.)
 */
function storeOneToOne(db: Kysely<DB>, values: unknown[]) {
  return db
    .with('message', (q) => q.insertInto('messages').values(rowFrom(messageColumns, values, 0)))
    .with('recipient', (q) =>
      q.insertInto('message_recipients').values(rowFrom(recipientColumns, values, recipientAt)),
    )
    .updateTable('conversations')
    .set({ last_message_at: values[conversationAt + 1] as number })
    .where('id', '=', values[conversationAt] as string);
}

const storeOneToOneInOneStatement = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  storeOneToOne(db, values),
);

/**
 * The same, and whether the recipient has opted out, read by a subquery of its
 * RETURNING clause: the send's opt-out check and its rows in one round trip
 * instead of two. The scope of the check is the message's account and mode.
 */
const storeOneToOneCheckingOptOutInOneStatement = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  storeOneToOne(db, values).returning((eb) =>
    eb
      .exists(
        eb
          .selectFrom('opt_outs')
          .select('phone')
          .where(
            ownedBy({
              accountId: values[conversationAt + 2] as string,
              mode: values[conversationAt + 3] as MessageRow['mode'],
            }),
          )
          .where('phone', '=', values[conversationAt + 4] as string),
      )
      .as('opted_out'),
  ),
);

/**
 * Stores a one-to-one send (see storeOutboundMessage) unless its recipient has
 * opted out of its account's messages in its mode, and says whether they had.
 * On PostgreSQL the check and the rows are one statement, where a send was two
 * round trips of the request lane: the rows are written whatever the check finds,
 * so where it returns `optedOut` the caller must fail its unit (throw), which
 * undoes them, as it does every change of a unit that fails (see WriteUnit).
 * On SQLite, where a statement is no round trip, the check comes first.
 * `sent` is called once the last statement is sent: on PostgreSQL as soon as it is
 * called, before its answer.
 */
export async function storeOneToOneUnlessOptedOut(
  db: Kysely<DB>,
  message: MessageRow,
  recipient: RecipientRow,
  sent?: () => void,
): Promise<{ optedOut: boolean }> {
  if (capabilitiesOf(db).roundTrips) {
    const stored = storeOneToOneCheckingOptOutInOneStatement(
      db,
      ...valuesIn(message, messageColumns),
      ...valuesIn(recipient, recipientColumns),
      message.conversation_id,
      message.created_at,
      message.account_id,
      message.mode,
      recipient.phone,
    );
    sent?.();
    const [row] = await stored;
    // The thread is opened or found before the store: a send that finds none is a bug, and
    // must not pass as a recipient who has not opted out.
    if (!row) throw new Error(`No conversation ${message.conversation_id} to store a send in.`);
    return { optedOut: Boolean((row as { opted_out: unknown }).opted_out) };
  }
  const optedOut =
    (
      await optedOutAmong(scoped(db, { accountId: message.account_id, mode: message.mode }), [
        recipient.phone,
      ])
    ).size > 0;
  if (!optedOut) await storeOutboundMessage(db, message, [recipient]);
  sent?.();
  return { optedOut };
}

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
  if (recipients.length === 1 && capabilitiesOf(db).roundTrips) {
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
