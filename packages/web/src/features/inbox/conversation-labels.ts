import type { Message } from '@switchboard/sdk';
import { formatPhone } from '../../lib/format.ts';
import type { LiveData } from '../../lib/live-data.ts';
import type { Conversation } from '../../lib/types.ts';

/** The thread's title: the other party's caller ID or number, or a group's member names. */
export function conversationTitle(live: LiveData, conversation: Conversation): string {
  const parties = conversation.participants.filter((p) => p.active);
  const shown = parties.length > 0 ? parties : conversation.participants;
  if (conversation.kind === 'direct' || shown.length === 1) {
    const party = shown[0];
    return party ? live.label(party.phone, party.name) : 'Unknown';
  }
  const names = shown.map((p) => firstName(live.label(p.phone, p.name)));
  return names.length <= 3
    ? names.join(', ')
    : `${names.slice(0, 3).join(', ')} +${names.length - 3}`;
}

function firstName(label: string): string {
  return label.startsWith('(') || label.startsWith('+') ? label : (label.split(' ')[0] ?? label);
}

/** The number under the title of a one-to-one thread, or a group's size. */
export function conversationSubtitle(conversation: Conversation): string {
  if (conversation.kind === 'group') {
    const active = conversation.participants.filter((p) => p.active).length;
    return `Group · ${active} ${active === 1 ? 'person' : 'people'}`;
  }
  const party = conversation.participants[0];
  return party ? formatPhone(party.phone) : '';
}

/** The one-line preview of the newest message in the list. */
export function messagePreview(live: LiveData, message: Message | null, group: boolean): string {
  if (!message) return 'No messages yet';
  const text = message.body.trim() || (message.media.length > 0 ? 'Attachment' : '');
  if (message.direction === 'outbound') {
    const who = message.senderName ?? 'Sent';
    return message.status === 'failed' ? `Failed · ${text}` : `${who}: ${text}`;
  }
  return group ? `${firstName(live.label(message.from))}: ${text}` : text;
}

/**
 * Why nothing can be sent in this thread, or null: a one-to-one thread with a number that
 * texted STOP, or a group whose every remaining member did (docs/behaviour.md#opt-out).
 */
export function sendingBlockedReason(live: LiveData, conversation: Conversation): string | null {
  const reachable = conversation.participants.filter((p) => p.active && !p.optedOut);
  if (
    conversation.kind === 'group' ? reachable.length > 0 : !conversation.participants[0]?.optedOut
  )
    return null;
  const party = conversation.participants[0];
  if (conversation.kind === 'direct' && party) {
    return `${live.label(party.phone, party.name)} texted STOP and has opted out: sending is off until they text START.`;
  }
  return 'Everyone in this group has opted out or left: sending is off.';
}

/** Whether a thread's one-to-one party has opted out (the list and the header say so). */
export function isOptedOutThread(conversation: Conversation): boolean {
  return conversation.kind === 'direct' && conversation.participants[0]?.optedOut === true;
}
