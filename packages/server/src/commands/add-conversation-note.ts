import { validationError } from '../domain/errors.ts';
import { mentionedIn, NOTE_MAX_LENGTH } from '../domain/mentions.ts';
import { newId } from '../lib/ids.ts';
import { presentNote, type NoteView } from '../presenters/note.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { insertNote } from '../store/repos/conversation-team.ts';
import { listUsers } from '../store/repos/users.ts';
import { accountScoped } from '../store/scope.ts';
import type { CommandDeps } from './context.ts';
import { conversationOf, type TeamActor } from './team-context.ts';

/**
 * Adds an internal note to a thread. A note is the team's only: it is stored apart from
 * messages, so no carrier submission, webhook event or opt-out rule ever sees it. The
 * teammates it @mentions are named in the push, so their devices notify them.
 */
export async function addConversationNote(
  tx: WriteTx,
  actor: TeamActor,
  id: string,
  body: string,
  deps: CommandDeps,
): Promise<NoteView> {
  const text = body.trim();
  if (text === '') throw validationError('body', 'A note needs a body.');
  if (text.length > NOTE_MAX_LENGTH || text.includes('\0')) {
    throw validationError(
      'body',
      `body must be at most ${NOTE_MAX_LENGTH} characters, without NUL.`,
    );
  }
  const conversation = await conversationOf(tx, actor, id);
  const team = await listUsers(accountScoped(tx.db, actor.accountId));
  const mentions = mentionedIn(text, team).filter((userId) => userId !== actor.userId);
  const now = deps.clock.now();
  const row = {
    id: newId('note', now),
    conversation_id: conversation.id,
    author_id: actor.userId,
    author_name: actor.userName,
    body: text,
    mentions_json: JSON.stringify(mentions),
    created_at: now,
  };
  await insertNote(tx.db, row);
  const note = presentNote(row);
  tx.publish('note.created', { accountId: actor.accountId, mode: actor.mode, note });
  return note;
}
