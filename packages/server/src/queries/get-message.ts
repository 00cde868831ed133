import { notFound } from '../domain/errors.ts';
import { presentMessage, type MessageView } from '../presenters/message.ts';
import { findMessage, listRecipients } from '../store/repos/messages.ts';
import type { Scope } from '../store/scope.ts';

/**
 * One message of the scope's account and mode, with its group participants'
 * statuses; `not_found` for an id of another account or mode, revealing nothing.
 */
export async function getMessage(scope: Scope, id: string): Promise<MessageView> {
  const row = await findMessage(scope, id);
  if (!row) throw notFound('message', id);
  return presentMessage(row, row.is_group ? await listRecipients(scope.db, row.id) : []);
}
