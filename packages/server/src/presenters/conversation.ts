import type { ConversationRow, ParticipantRow } from '../store/repos/conversations.ts';
import type { MessageView } from './message.ts';
import { isoTime } from './time.ts';

/** A party of a conversation, with the caller-ID name the directory gives it. */
export interface PartyView {
  phone: string;
  name: string | null;
  active: boolean;
  /** The number texted STOP (and not START since): nothing can be sent to it. */
  optedOut: boolean;
}

/** A conversation as the shared inbox lists it. */
export interface ConversationView {
  id: string;
  kind: ConversationRow['kind'];
  accountPhone: string;
  participants: PartyView[];
  lastMessage: MessageView | null;
  lastMessageAt: string;
  unreadCount: number;
}

/** Turns a conversation, its participants and last message into the inbox row. */
export function presentConversation(
  row: ConversationRow,
  participants: ParticipantRow[],
  lastMessage: MessageView | null,
  names: Map<string, string>,
  optedOut: ReadonlySet<string> = new Set(),
): ConversationView {
  return {
    id: row.id,
    kind: row.kind,
    accountPhone: row.account_phone,
    participants: participants.map((p) => ({
      phone: p.phone,
      name: names.get(p.phone) ?? null,
      active: p.active === 1,
      optedOut: optedOut.has(p.phone),
    })),
    lastMessage,
    lastMessageAt: isoTime(row.last_message_at),
    unreadCount: row.unread_count,
  };
}
