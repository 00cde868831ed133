import { notFound, validationError } from '../domain/errors.ts';
import { presentContact, type ContactView } from '../presenters/contact.ts';
import {
  deleteContact as removeContact,
  findContact,
  updateContact as writeContact,
} from '../store/repos/contacts.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scoped } from '../store/scope.ts';
import { scopeOf, type Actor, type CommandDeps } from './context.ts';

/**
 * Merges a duplicate into a contact: the kept one takes the duplicate's name, email and
 * company where its own are empty, and the duplicate is removed, in one transaction.
 */
export async function mergeContacts(
  tx: WriteTx,
  actor: Actor,
  input: { keepId: string; duplicateId: string },
  deps: CommandDeps,
): Promise<ContactView> {
  const scope = scoped(tx.db, actor);
  if (input.keepId === input.duplicateId) {
    throw validationError('duplicateId', 'A contact cannot be merged into itself.');
  }
  const [keep, duplicate] = await Promise.all([
    findContact(scope, input.keepId),
    findContact(scope, input.duplicateId),
  ]);
  if (!keep) throw notFound('contact', input.keepId);
  if (!duplicate) throw notFound('contact', input.duplicateId);
  const changes = {
    name: keep.name ?? duplicate.name,
    email: keep.email ?? duplicate.email,
    company: keep.company ?? duplicate.company,
    updated_at: deps.clock.now(),
  };
  await writeContact(tx.db, keep.id, changes);
  await removeContact(tx.db, duplicate.id);
  const contact = presentContact({ ...keep, ...changes });
  tx.publish('contact.deleted', { ...scopeOf(actor), id: duplicate.id });
  tx.publish('contact.changed', { ...scopeOf(actor), contact });
  return contact;
}
