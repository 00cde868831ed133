import {
  nextStatus,
  overallOutcome,
  type FailureReason,
  type MessageStatus,
} from '../domain/message-status.ts';
import {
  presentMessage,
  presentParticipantUpdate,
  type MessageView,
} from '../presenters/message.ts';
import {
  listRecipients,
  lockMessageById,
  type MessageRow,
  type RecipientRow,
} from '../store/repos/messages.ts';
import { updateRecipientStatus, type RecipientMove } from '../store/repos/recipient-moves.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scopeOf, type CommandDeps } from './context.ts';
import { recordEvent, type PlannedEvent } from './record-event.ts';

/** The rows a transition left: the recipient moved, and its message as it is now. */
export interface Transitioned {
  recipient: RecipientRow;
  message: MessageRow;
}

/** A transition decided, not yet written (see planTransition). */
export interface TransitionPlan extends Transitioned {
  /** The recipient's status the move starts from: it applies only if the row is still so. */
  from: MessageStatus;
  /** The message's recipients with the move applied. */
  recipients: RecipientRow[];
  /** Whether the message's overall status changes with it. */
  messageChanged: boolean;
  at: number;
}

/**
 * What moving `current`, one of `before` (the message's recipients as read), to
 * `status` would leave, if the state machine allows it; null if it does not (a
 * duplicate or late report). Writes nothing.
 */
export function planTransition(
  message: MessageRow,
  before: RecipientRow[],
  current: RecipientRow,
  status: MessageStatus,
  failureReason: FailureReason | null,
  at: number,
): TransitionPlan | null {
  const next = nextStatus(current.status, status);
  if (next === null) return null;
  const moved: RecipientRow = {
    ...current,
    status: next,
    failure_reason: next === 'failed' ? (failureReason ?? 'carrier_rejected') : null,
    updated_at: at,
  };
  const recipients = before.map((r) => (r === current ? moved : r));
  const { status: overall, failureReason: overallReason } = overallOutcome(recipients);
  const messageChanged = nextStatus(message.status, overall) !== null;
  return {
    from: current.status,
    recipient: moved,
    recipients,
    messageChanged,
    message: messageChanged
      ? { ...message, status: overall, failure_reason: overallReason, updated_at: at }
      : message,
    at,
  };
}

/** What a written transition reports: its event, if any, and the inbox's update. */
export interface TransitionReports {
  /** `message.delivered` / `message.failed` when the recipient reached one of them. */
  event: PlannedEvent | null;
  /** The payload of the `message.updated` signal. */
  updated: { accountId: string; mode: MessageRow['mode']; message: MessageView };
}

/** The reports of `plan` (see TransitionReports), for the caller to record and publish. */
export function reportsOf(plan: TransitionPlan): TransitionReports {
  const { message, recipients, recipient } = plan;
  const actor = { accountId: message.account_id, mode: message.mode };
  const view = presentMessage(message, recipients);
  const reached = recipient.status === 'delivered' || recipient.status === 'failed';
  return {
    event: reached
      ? {
          actor,
          type: recipient.status === 'delivered' ? 'message.delivered' : 'message.failed',
          // A group's receipts are reported per participant, keyed to the conversation.
          data: message.is_group ? presentParticipantUpdate(message, recipients, recipient) : view,
          at: plan.at,
        }
      : null,
    updated: { ...scopeOf(actor), message: view },
  };
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
  let plan: TransitionPlan | null;
  // At most twice: the second time with the row read under the lock.
  for (let reread = false; ; reread = true) {
    if (!current) return null;
    plan = planTransition(message, before, current, status, failureReason, now);
    if (plan === null) return null;
    // Applies only if the row is still as read: a transition by another instance that
    // committed between the caller's read and the lock has changed it. The message's
    // new overall status is written with it, and only then.
    if (await writeTransition(tx.db, plan)) break;
    if (reread) return null;
    before = await listRecipients(tx.db, message.id);
    current = before.find((r) => r.phone === recipient.phone);
  }
  const { event, updated } = reportsOf(plan);
  if (event) await recordEvent(tx, event.actor, event.type, event.data, event.at);
  tx.publish('message.updated', updated);
  return { recipient: plan.recipient, message: plan.message };
}

/** The write of a planned transition (see moveRecipients). */
export function moveOf(plan: TransitionPlan): RecipientMove {
  const { recipient, message } = plan;
  return {
    messageId: message.id,
    phone: recipient.phone,
    from: plan.from,
    status: recipient.status,
    failureReason: recipient.failure_reason,
    at: plan.at,
    message: plan.messageChanged
      ? { status: message.status, failureReason: message.failure_reason }
      : null,
  };
}

/** Writes a planned transition; false, changing nothing, if the recipient has moved since. */
function writeTransition(db: WriteTx['db'], plan: TransitionPlan): Promise<boolean> {
  const m = moveOf(plan);
  return updateRecipientStatus(
    db,
    m.messageId,
    m.phone,
    m.from,
    m.status,
    m.failureReason,
    m.at,
    m.message,
  );
}
