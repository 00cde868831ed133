import { notFound } from '../domain/errors.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { findConversation, type ConversationRow } from '../store/repos/conversations.ts';
import { scoped } from '../store/scope.ts';
import type { Actor } from './context.ts';

/** A signed-in teammate acting on the shared inbox of one account and mode. */
export interface TeamActor extends Actor {
  userId: string;
  userName: string;
}

/** The conversation of the actor's account and mode, or a 404. */
export async function conversationOf(
  tx: WriteTx,
  actor: Actor,
  id: string,
): Promise<ConversationRow> {
  const { accountId, mode } = actor;
  const conversation = await findConversation(scoped(tx.db, { accountId, mode }), id);
  if (!conversation) throw notFound('conversation', id);
  return conversation;
}
