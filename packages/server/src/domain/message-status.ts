// The status and failure-reason vocabularies are part of the wire format, so they are
// defined once in the SDK; the transitions between them are the server's rule, below.
import {
  FAILURE_REASONS,
  MESSAGE_STATUSES,
  type FailureReason,
  type MessageStatus,
} from '@switchboard/sdk/types';

export { FAILURE_REASONS, MESSAGE_STATUSES, type FailureReason, type MessageStatus };

// Forward moves only. queued -> delivered is allowed because carriers do not guarantee that
// the "sent" report arrives before the delivery receipt.
const FORWARD: Readonly<Record<MessageStatus, readonly MessageStatus[]>> = {
  queued: ['sent', 'delivered', 'failed'],
  sent: ['delivered', 'failed'],
  delivered: [],
  failed: [],
};

/** Narrows an untrusted value (a stored column, a carrier report) to a MessageStatus. */
export function isMessageStatus(value: unknown): value is MessageStatus {
  return (MESSAGE_STATUSES as readonly unknown[]).includes(value);
}

/** Narrows an untrusted value to a FailureReason. */
export function isFailureReason(value: unknown): value is FailureReason {
  return (FAILURE_REASONS as readonly unknown[]).includes(value);
}

/** True for `delivered` and `failed`: no later report can change such a message. */
export function isTerminalStatus(status: MessageStatus): boolean {
  return FORWARD[status].length === 0;
}

/**
 * True when a message in `from` may move to `to`. Only forward moves are allowed; a repeat
 * of the current status or a step backwards is not a transition.
 */
export function canTransition(from: MessageStatus, to: MessageStatus): boolean {
  return FORWARD[from].includes(to);
}

/**
 * The status to store after a report of `to` for a message in `from`, or null when the report
 * must be ignored (a duplicate, late or out-of-order receipt).
 */
export function nextStatus(from: MessageStatus, to: MessageStatus): MessageStatus | null {
  return canTransition(from, to) ? to : null;
}

const PROGRESS = { queued: 0, sent: 1, delivered: 2 } as const;
type LiveStatus = keyof typeof PROGRESS;

/**
 * A group message's overall status from its participants' statuses: the least advanced of
 * the participants that have not failed, or `failed` only when every participant failed.
 *
 * As participants only move forward, the result only moves forward too, so it can be stored
 * through `nextStatus` like any other report. An empty list has nobody left and is `failed`.
 */
export function aggregateStatus(participants: readonly MessageStatus[]): MessageStatus {
  let least: LiveStatus | null = null;
  for (const status of participants) {
    if (status === 'failed') continue;
    if (least === null || PROGRESS[status] < PROGRESS[least]) least = status;
  }
  return least ?? 'failed';
}

/**
 * A message's overall status and failure reason from its recipients: the status of
 * aggregateStatus, and the first recipient's failure reason when every one failed.
 * Every transition stores this on the message; a view of a group derives it from the
 * participants it shows, so the two always agree.
 */
export function overallOutcome(
  recipients: readonly { status: MessageStatus; failure_reason: string | null }[],
): { status: MessageStatus; failureReason: string | null } {
  const status = aggregateStatus(recipients.map((r) => r.status));
  const failureReason =
    status === 'failed' ? (recipients.find((r) => r.failure_reason)?.failure_reason ?? null) : null;
  return { status, failureReason };
}
