import type { ConversationStateRow } from '../store/repos/conversation-team.ts';
import { saveState, statesOf } from '../store/repos/conversation-team.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { conversationOf, type TeamActor } from './team-context.ts';

/** A conversation's team state as the softphone shows it. */
export interface ConversationStateView {
  conversationId: string;
  status: 'open' | 'done';
  assigneeId: string | null;
}

/**
 * Applies `change` to a conversation's status and assignee and tells every device; the
 * shared step of setting the status and assigning (not a command of the registry).
 */
export async function changeConversationState(
  tx: WriteTx,
  actor: TeamActor,
  id: string,
  change: Partial<Pick<ConversationStateRow, 'status' | 'assignee_id'>>,
  deps: CommandDeps,
): Promise<ConversationStateView> {
  const conversation = await conversationOf(tx, actor, id);
  const [current] = await statesOf(tx.db, [conversation.id]);
  const row: ConversationStateRow = {
    conversation_id: conversation.id,
    status: change.status ?? current?.status ?? 'open',
    assignee_id:
      change.assignee_id !== undefined ? change.assignee_id : (current?.assignee_id ?? null),
    updated_at: deps.clock.now(),
  };
  await saveState(tx.db, row);
  const view: ConversationStateView = {
    conversationId: row.conversation_id,
    status: row.status,
    assigneeId: row.assignee_id,
  };
  tx.publish('conversation.updated', {
    accountId: actor.accountId,
    mode: actor.mode,
    ...view,
    by: { id: actor.userId, name: actor.userName },
    // Tells one assignment from another of the same teammate (push claims, push-notifier.ts).
    updatedAt: row.updated_at,
  });
  return view;
}
