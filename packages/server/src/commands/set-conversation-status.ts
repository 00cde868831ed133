import { validationError } from '../domain/errors.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import {
  changeConversationState,
  type ConversationStateView,
} from './change-conversation-state.ts';
import type { CommandDeps } from './context.ts';
import type { TeamActor } from './team-context.ts';

/** Marks a conversation done, or open again; a done one reopens by itself on a new inbound text. */
export async function setConversationStatus(
  tx: WriteTx,
  actor: TeamActor,
  id: string,
  status: string,
  deps: CommandDeps,
): Promise<ConversationStateView> {
  if (status !== 'open' && status !== 'done') {
    throw validationError('status', "status must be 'open' or 'done'.");
  }
  return changeConversationState(tx, actor, id, { status }, deps);
}
