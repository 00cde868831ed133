import { overallOutcome } from '../domain/message-status.ts';
import type { MessageRow, RecipientRow } from '../store/repos/messages.ts';
import { isoTime } from './time.ts';

/**
 * A media attachment: where it is and what it is. Inbound media kept by the media store also
 * carry their `size`; one not kept says so (`kept: false`) and why.
 */
export interface MediaView {
  url: string;
  contentType: string;
  size?: number | null;
  kept?: false;
  reason?: string;
}

/** A participant of a group send and how far the message got to them. */
export interface ParticipantView {
  phone: string;
  status: RecipientRow['status'];
}

/** A Message as the API, webhooks and the softphone show it. */
export interface MessageView {
  id: string;
  object: 'message';
  from: string;
  to: string | string[];
  body: string;
  direction: MessageRow['direction'];
  status: MessageRow['status'];
  segments: number;
  conversationId: string;
  media: MediaView[];
  senderName: string | null;
  failureReason: string | null;
  participants?: ParticipantView[];
  createdAt: string;
}

/** Turns a message row (and, for a group, its recipients) into its public shape. */
export function presentMessage(row: MessageRow, recipients: RecipientRow[] = []): MessageView {
  const view: MessageView = {
    id: row.id,
    object: 'message',
    from: row.from_phone,
    to: JSON.parse(row.to_json) as string | string[],
    body: row.body,
    direction: row.direction,
    status: row.status,
    segments: row.segments,
    conversationId: row.conversation_id,
    media: JSON.parse(row.media_json) as MediaView[],
    senderName: row.sender_name,
    failureReason: row.failure_reason,
    createdAt: isoTime(row.created_at),
  };
  if (row.is_group) {
    view.participants = recipients.map((r) => ({ phone: r.phone, status: r.status }));
    // A read of the message and then its recipients is two statements, and a receipt may
    // commit between them: a group's overall status is taken from the participants shown,
    // which is what every transition stores (overallOutcome), so the view agrees with itself.
    if (recipients.length > 0) {
      const overall = overallOutcome(recipients);
      view.status = overall.status;
      view.failureReason = overall.failureReason;
    }
  }
  return view;
}

/**
 * The payload of a per-participant delivery event of a group message: the
 * message keyed to its conversation, with `to`, `status` and `failureReason`
 * of the one participant concerned.
 */
export function presentParticipantUpdate(
  row: MessageRow,
  recipients: RecipientRow[],
  recipient: RecipientRow,
): MessageView {
  return {
    ...presentMessage(row, recipients),
    to: recipient.phone,
    status: recipient.status,
    failureReason: recipient.failure_reason,
  };
}
