import {
  aggregateStatus,
  nextStatus,
  type FailureReason,
  type MessageStatus,
} from '../domain/message-status.ts';
import { presentMessage, presentParticipantUpdate } from '../presenters/message.ts';
import {
  listRecipients,
  lockMessageById,
  updateMessageStatus,
  updateRecipientStatus,
  writesConcurrently,
  type RecipientRow,
} from '../store/repos/messages.ts';
import type { WriteTx } from '../store/write-queue.ts';
import { scopeOf, type CommandDeps } from './context.ts';
import { recordEvent } from './record-event.ts';

/**
 * Moves one recipient of an outbound message to `status` if the state machine
 * allows it, updates the message's overall status, and records
 * `message.delivered` / `message.failed` in the same transaction. A duplicate
 * or late report changes nothing and records nothing; returns whether it applied.
 */
export async function transitionRecipient(
  tx: WriteTx,
  recipient: RecipientRow,
  status: MessageStatus,
  failureReason: FailureReason | null,
  deps: CommandDeps,
): Promise<boolean> {
  // Lock the message before deciding anything. On PostgreSQL two participants' receipts may
  // commit at once (other lanes, other instances): each computing the overall status from
  // the other's row as it was before would store a status neither participant has.
  const message = await lockMessageById(tx.db, recipient.message_id);
  if (!message) return false;
  // The recipients as the transitions before this one left them. Where no other writer
  // runs (SQLite), the row the caller read in this transaction is still current.
  const before =
    message.is_group || writesConcurrently(tx.db)
      ? await listRecipients(tx.db, message.id)
      : [recipient];
  const current = before.find((r) => r.phone === recipient.phone);
  if (!current) return false;
  const next = nextStatus(current.status, status);
  if (next === null) return false;
  const now = deps.clock.now();
  const reason = next === 'failed' ? (failureReason ?? 'carrier_rejected') : null;
  await updateRecipientStatus(tx.db, message.id, current.phone, next, reason, now);
  const changedRecipient = { ...current, status: next, failure_reason: reason, updated_at: now };
  const recipients = before.map((r) => (r === current ? changedRecipient : r));

  const overall = aggregateStatus(recipients.map((r) => r.status));
  const overallReason =
    overall === 'failed'
      ? (recipients.find((r) => r.failure_reason)?.failure_reason ?? reason)
      : null;
  const changed = nextStatus(message.status, overall) !== null;
  if (changed) await updateMessageStatus(tx.db, message.id, overall, overallReason, now);
  const updated = changed
    ? { ...message, status: overall, failure_reason: overallReason, updated_at: now }
    : message;

  const actor = { accountId: message.account_id, mode: message.mode };
  const view = presentMessage(updated, recipients);
  if (next === 'delivered' || next === 'failed') {
    // A group's receipts are reported per participant, keyed to the conversation.
    const data = message.is_group
      ? presentParticipantUpdate(updated, recipients, changedRecipient)
      : view;
    await recordEvent(
      tx,
      actor,
      next === 'delivered' ? 'message.delivered' : 'message.failed',
      data,
      now,
    );
  }
  tx.publish('message.updated', { ...scopeOf(actor), message: view });
  return true;
}
