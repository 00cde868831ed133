import type { ConversationView } from '../presenters/conversation.ts';
import type { MessageView } from '../presenters/message.ts';
import { presentNote, type NoteView } from '../presenters/note.ts';
import { listNotes, statesOf, unreadCountsFor } from '../store/repos/conversation-team.ts';
import type { AccountScope, Scope } from '../store/scope.ts';
import { listUsers } from '../store/repos/users.ts';
import { loadConversation, loadInbox } from './inbox.ts';

/** Who is looking: their unread counts are their own. */
export interface Viewer {
  userId: string;
  /** When they joined: texts before it are not unread for them. */
  joinedAt: number;
}

/** A conversation as one teammate's inbox lists it. */
export interface TeamConversationView extends ConversationView {
  status: 'open' | 'done';
  assigneeId: string | null;
}

async function withTeamState(
  scope: Scope,
  viewer: Viewer,
  conversations: ConversationView[],
): Promise<TeamConversationView[]> {
  const ids = conversations.map((c) => c.id);
  const [states, unread] = await Promise.all([
    statesOf(scope.db, ids),
    unreadCountsFor(scope.db, viewer.userId, viewer.joinedAt, ids),
  ]);
  const stateOf = new Map(states.map((s) => [s.conversation_id, s]));
  return conversations.map((c) => ({
    ...c,
    unreadCount: unread.get(c.id) ?? 0,
    status: stateOf.get(c.id)?.status ?? 'open',
    assigneeId: stateOf.get(c.id)?.assignee_id ?? null,
  }));
}

/** The shared inbox as one teammate sees it: status, assignee and their own unread counts. */
export async function loadTeamInbox(scope: Scope, viewer: Viewer): Promise<TeamConversationView[]> {
  return withTeamState(scope, viewer, await loadInbox(scope));
}

/** One thread as a teammate sees it: its messages and the team's internal notes. */
export async function loadTeamConversation(
  scope: Scope,
  viewer: Viewer,
  id: string,
): Promise<{ conversation: TeamConversationView; messages: MessageView[]; notes: NoteView[] }> {
  const { conversation, messages } = await loadConversation(scope, id);
  const [[view], notes] = await Promise.all([
    withTeamState(scope, viewer, [conversation]),
    listNotes(scope.db, conversation.id),
  ]);
  return { conversation: view!, messages, notes: notes.map(presentNote) };
}

/** The teammates of an account, as assignment and mentions offer them. */
export async function loadTeammates(scope: AccountScope): Promise<{ id: string; name: string }[]> {
  const users = await listUsers(scope);
  return users.map((u) => ({ id: u.id, name: u.name }));
}
