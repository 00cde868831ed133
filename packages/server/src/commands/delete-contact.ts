import { notFound } from '../domain/errors.ts';
import { deleteContact as removeContact, findContact } from '../store/repos/contacts.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scoped } from '../store/scope.ts';
import { scopeOf, type Actor } from './context.ts';

/**
 * Removes a contact from the shared directory; its number's caller ID falls back to the next
 * newest contact with it, or to the number. Messages and calls keep what they recorded.
 */
export async function deleteContact(
  tx: WriteTx,
  actor: Actor,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const row = await findContact(scoped(tx.db, actor), id);
  if (!row) throw notFound('contact', id);
  await removeContact(tx.db, id);
  tx.publish('contact.deleted', { ...scopeOf(actor), id });
  return { id, deleted: true };
}
