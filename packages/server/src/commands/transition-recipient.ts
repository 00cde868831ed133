import {
  nextStatus,
  overallOutcome,
  type FailureReason,
  type MessageStatus,
} from '../domain/message-status.ts';
import { presentMessage, presentParticipantUpdate } from '../presenters/message.ts';
import {
  listRecipients,
  lockMessageById,
  updateRecipientStatus,
  type MessageRow,
  type RecipientRow,
} from '../store/repos/messages.ts';
import type { WriteTx } from '../store/write-queue.ts';
import { scopeOf, type CommandDeps } from './context.ts';
import { recordEvent } from './record-event.ts';

/** The rows a transition left: the recipient moved, and its message as it is now. */
export interface Transitioned {
  recipient: RecipientRow;
  message: MessageRow;
}

/**
 * Moves one recipient of an outbound message to `status` if the state machine
 * allows it, updates the message's overall status, and records
 * `message.delivered` / `message.failed` in the same transaction. A duplicate
 * or late report changes nothing and records nothing, and answers null.
 */
export async function transitionRecipient(
  tx: WriteTx,
  recipient: RecipientRow,
  status: MessageStatus,
  failureReason: FailureReason | null,
  deps: CommandDeps,
  lockedMessage?: MessageRow,
): Promise<Transitioned | null> {
  // Lock the message before deciding anything (unless the caller read it locked). On
  // PostgreSQL two instances may commit two participants' receipts at once: each computing
  // the overall status from the other's row as it was before would store a status neither
  // participant has. (Within one process a message's receipts and its dispatch failures
  // share the carrier lane.)
  const message = lockedMessage ?? (await lockMessageById(tx.db, recipient.message_id));
  if (!message) return null;
  // A group's recipients as the transitions before this one left them; a one-to-one
  // message's one recipient as the caller read it, checked by the update below.
  let before = message.is_group ? await listRecipients(tx.db, message.id) : [recipient];
  let current = before.find((r) => r.phone === recipient.phone);
  const now = deps.clock.now();
  let next: MessageStatus | null;
  let changedRecipient: RecipientRow;
  let recipients: RecipientRow[];
  let overall: MessageStatus;
  let overallReason: string | null;
  let changed: boolean;
  // At most twice: the second time with the row read under the lock.
  for (let reread = false; ; reread = true) {
    if (!current) return null;
    next = nextStatus(current.status, status);
    if (next === null) return null;
    const reason = next === 'failed' ? (failureReason ?? 'carrier_rejected') : null;
    const moved: RecipientRow = {
      ...current,
      status: next,
      failure_reason: reason,
      updated_at: now,
    };
    changedRecipient = moved;
    recipients = before.map((r) => (r === current ? moved : r));
    ({ status: overall, failureReason: overallReason } = overallOutcome(recipients));
    changed = nextStatus(message.status, overall) !== null;
    // Applies only if the row is still as read: a transition by another instance that
    // committed between the caller's read and the lock has changed it. The message's
    // new overall status is written with it, and only then.
    if (
      await updateRecipientStatus(
        tx.db,
        message.id,
        current.phone,
        current.status,
        next,
        reason,
        now,
        changed ? { status: overall, failureReason: overallReason } : null,
      )
    )
      break;
    if (reread) return null;
    before = await listRecipients(tx.db, message.id);
    current = before.find((r) => r.phone === recipient.phone);
  }
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
  return { recipient: changedRecipient, message: updated };
}
