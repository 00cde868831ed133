import { findRead, saveRead } from '../store/repos/conversation-team.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { conversationOf, type TeamActor } from './team-context.ts';

/** Marks a conversation unread for the signed-in user only, until they open it again. */
export async function markConversationUnread(
  tx: WriteTx,
  actor: TeamActor,
  id: string,
  deps: CommandDeps,
): Promise<{ id: string; unreadCount: number }> {
  const { accountId, mode, userId } = actor;
  const conversation = await conversationOf(tx, actor, id);
  // What was read stays read; the mark alone makes it count as one unread.
  const previous = await findRead(tx.db, userId, conversation.id);
  await saveRead(tx.db, {
    conversation_id: conversation.id,
    user_id: userId,
    read_at: previous?.read_at ?? deps.clock.now(),
    marked_unread: 1,
  });
  tx.publish('conversation.unread', { accountId, mode, conversationId: conversation.id, userId });
  return { id, unreadCount: 1 };
}
