import { notFound } from '../domain/errors.ts';
import {
  findConversation,
  markConversationRead as markRead,
} from '../store/repos/conversations.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { Actor } from './context.ts';
import { scoped } from '../store/scope.ts';

/** Marks a conversation of the actor's account and mode read, for every signed-in device. */
export async function markConversationRead(
  tx: WriteTx,
  actor: Actor,
  id: string,
): Promise<{ id: string; unreadCount: 0 }> {
  const { accountId, mode } = actor;
  const conversation = await findConversation(scoped(tx.db, { accountId, mode }), id);
  if (!conversation) throw notFound('conversation', id);
  await markRead(tx.db, conversation.id);
  tx.publish('conversation.read', { accountId, mode, conversationId: conversation.id });
  return { id, unreadCount: 0 };
}
