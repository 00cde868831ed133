import type { Kysely } from 'kysely';
import { notFound } from '../domain/errors.ts';
import { presentMessage, type MessageView } from '../presenters/message.ts';
import { findMessage, listRecipients } from '../store/repos/messages.ts';
import type { DB } from '../store/schema.ts';
import type { Actor } from './context.ts';

/**
 * One message of the actor's account and mode, with its group participants'
 * statuses; `not_found` for an id of another account or mode, revealing nothing.
 */
export async function getMessage(db: Kysely<DB>, actor: Actor, id: string): Promise<MessageView> {
  const row = await findMessage(db, actor.accountId, actor.mode, id);
  if (!row) throw notFound('message', id);
  return presentMessage(row, row.is_group ? await listRecipients(db, row.id) : []);
}
