import {
  aggregateStatus,
  nextStatus,
  type FailureReason,
  type MessageStatus,
} from '../domain/message-status.ts';
import { presentMessage, presentParticipantUpdate } from '../presenters/message.ts';
import {
  findMessageById,
  listRecipients,
  updateMessageStatus,
  updateRecipient,
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
  const next = nextStatus(recipient.status, status);
  if (next === null) return false;
  const now = deps.clock.now();
  const reason = next === 'failed' ? (failureReason ?? 'carrier_rejected') : null;
  await updateRecipient(
    tx.db,
    recipient.message_id,
    recipient.phone,
    { status: next, failure_reason: reason },
    now,
  );

  const message = await findMessageById(tx.db, recipient.message_id);
  if (!message) return true;
  const recipients = await listRecipients(tx.db, message.id);
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
  const changedRecipient = recipients.find((r) => r.phone === recipient.phone)!;
  if (next === 'delivered' || next === 'failed') {
    // A group's receipts are reported per participant, keyed to the conversation.
    const data = message.is_group
      ? presentParticipantUpdate(updated, recipients, changedRecipient)
      : presentMessage(updated, recipients);
    await recordEvent(
      tx,
      actor,
      next === 'delivered' ? 'message.delivered' : 'message.failed',
      data,
      now,
    );
  }
  tx.publish('message.updated', {
    ...scopeOf(actor),
    message: presentMessage(updated, recipients),
  });
  return true;
}
