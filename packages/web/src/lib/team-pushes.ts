import type { Alert, LiveSnapshot } from './live-data.ts';
import type { Conversation, Note, Push } from './types.ts';

/** How long "… is replying" stays after the last typing notice. */
export const TYPING_SHOWN_MS = 5000;

/** The pushes of the team workflow. */
export type TeamPush = Extract<
  Push,
  {
    type:
      | 'conversation.read'
      | 'conversation.unread'
      | 'conversation.updated'
      | 'note.created'
      | 'typing';
  }
>;

/** What a team push changes, and what it is worth telling the user. */
export interface TeamChange {
  patch: Partial<LiveSnapshot>;
  alert?: Alert;
}

function patched(
  list: Conversation[] | null,
  id: string,
  patch: Partial<Conversation>,
): Conversation[] | null {
  if (!list?.some((c) => c.id === id)) return list;
  return list.map((c) => (c.id === id ? { ...c, ...patch } : c));
}

/** A note added to its loaded thread (once), and the end of its author's typing there. */
export function withNote(snapshot: LiveSnapshot, note: Note): Partial<LiveSnapshot> {
  const notes = snapshot.notes[note.conversationId];
  if (!notes || notes.some((n) => n.id === note.id)) return {};
  const patch: Partial<LiveSnapshot> = {
    notes: { ...snapshot.notes, [note.conversationId]: [...notes, note] },
  };
  if (snapshot.typing[note.conversationId]?.user.id === note.author.id) {
    const { [note.conversationId]: _done, ...typing } = snapshot.typing;
    patch.typing = typing;
  }
  return patch;
}

/**
 * How a team push changes the snapshot of user `me`: their own read marks only, status and
 * assignee for everyone, notes, and who is typing; an assignment to them by someone else
 * and a note mentioning them are alerts.
 */
export function applyTeamPush(
  snapshot: LiveSnapshot,
  push: TeamPush,
  me: string | null,
  now: number,
): TeamChange {
  const list = snapshot.conversations;
  switch (push.type) {
    case 'conversation.read':
      if (push.userId !== undefined && push.userId !== me) return { patch: {} };
      return { patch: { conversations: patched(list, push.conversationId, { unreadCount: 0 }) } };
    case 'conversation.unread': {
      if (push.userId !== me) return { patch: {} };
      const count = list?.find((c) => c.id === push.conversationId)?.unreadCount ?? 0;
      const unreadCount = Math.max(1, count);
      return { patch: { conversations: patched(list, push.conversationId, { unreadCount }) } };
    }
    case 'conversation.updated': {
      const before = list?.find((c) => c.id === push.conversationId);
      const { status, assigneeId } = push;
      const patch = { conversations: patched(list, push.conversationId, { status, assigneeId }) };
      const newlyMine = assigneeId !== null && assigneeId === me && before?.assigneeId !== me;
      if (!newlyMine || !push.by || push.by.id === me) return { patch };
      const alert: Alert = {
        kind: 'assignment',
        title: `${push.by.name} assigned you a conversation`,
        body: before?.participants.map((p) => p.name ?? p.phone).join(', ') ?? '',
        conversationId: push.conversationId,
        mine: true,
      };
      return { patch, alert };
    }
    case 'note.created': {
      const patch = withNote(snapshot, push.note);
      if (!push.note.mentions.includes(me ?? '')) return { patch };
      const alert: Alert = {
        kind: 'mention',
        title: `${push.note.author.name} mentioned you`,
        body: push.note.body,
        conversationId: push.note.conversationId,
        mine: true,
      };
      return { patch, alert };
    }
    case 'typing': {
      const typing = { ...snapshot.typing };
      typing[push.conversationId] = { user: push.user, until: now + TYPING_SHOWN_MS };
      return { patch: { typing } };
    }
  }
}

/** The snapshot without typing notices that have run out. */
export function withoutExpiredTyping(snapshot: LiveSnapshot, now: number): Partial<LiveSnapshot> {
  const entries = Object.entries(snapshot.typing);
  const current = entries.filter(([, entry]) => entry.until > now);
  return current.length === entries.length ? {} : { typing: Object.fromEntries(current) };
}
