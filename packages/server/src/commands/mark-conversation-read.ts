import { markConversationRead as markSharedRead } from '../store/repos/conversations.ts';
import { saveRead } from '../store/repos/conversation-team.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { conversationOf, type TeamActor } from './team-context.ts';

/**
 * Marks a conversation read for the signed-in user, on each of their devices; what a
 * teammate has read is their own (docs/behaviour.md#team-workflow).
 */
export async function markConversationRead(
  tx: WriteTx,
  actor: TeamActor,
  id: string,
  deps: CommandDeps,
): Promise<{ id: string; unreadCount: 0 }> {
  const { accountId, mode, userId } = actor;
  const conversation = await conversationOf(tx, actor, id);
  const now = deps.clock.now();
  await saveRead(tx.db, {
    conversation_id: conversation.id,
    user_id: userId,
    read_at: now,
    marked_unread: 0,
  });
  // The column's count is the account's, as before: read by anyone, it is read.
  await markSharedRead(tx.db, conversation.id);
  tx.publish('conversation.read', { accountId, mode, conversationId: conversation.id, userId });
  return { id, unreadCount: 0 };
}
