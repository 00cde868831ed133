import { validationError } from '../domain/errors.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { findUser } from '../store/repos/users.ts';
import {
  changeConversationState,
  type ConversationStateView,
} from './change-conversation-state.ts';
import type { CommandDeps } from './context.ts';
import type { TeamActor } from './team-context.ts';

/** Assigns a conversation to a teammate of the account, or to nobody (`null`). */
export async function assignConversation(
  tx: WriteTx,
  actor: TeamActor,
  id: string,
  assigneeId: string | null,
  deps: CommandDeps,
): Promise<ConversationStateView> {
  if (assigneeId !== null) {
    const user = await findUser(tx.db, assigneeId);
    if (!user || user.account_id !== actor.accountId) {
      throw validationError('assigneeId', 'assigneeId must be a teammate of this account.');
    }
  }
  return changeConversationState(tx, actor, id, { assignee_id: assigneeId }, deps);
}
