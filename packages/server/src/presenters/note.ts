import type { ConversationNoteRow } from '../store/repos/conversation-team.ts';
import { isoTime } from './time.ts';

/** An internal note as the softphone shows it in a thread. */
export interface NoteView {
  id: string;
  conversationId: string;
  author: { id: string; name: string };
  body: string;
  mentions: string[];
  createdAt: string;
}

/** A stored note as the team sees it. */
export function presentNote(row: ConversationNoteRow): NoteView {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    author: { id: row.author_id, name: row.author_name },
    body: row.body,
    mentions: JSON.parse(row.mentions_json) as string[],
    createdAt: isoTime(row.created_at),
  };
}
