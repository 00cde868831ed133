import { notFound } from '../domain/errors.ts';
import { checkContactFields, optionalText } from '../domain/contact-rules.ts';
import { presentContact, type ContactView } from '../presenters/contact.ts';
import { findContact, updateContact as writeContact } from '../store/repos/contacts.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scopeOf, type Actor, type CommandDeps } from './context.ts';
import { scoped } from '../store/scope.ts';

/** Changes to a contact; `null` clears an optional field. */
export interface UpdateContactInput {
  phone?: string | undefined;
  name?: string | null | undefined;
  email?: string | null | undefined;
  company?: string | null | undefined;
}

/** Edits a contact of the shared directory (the softphone's contact editor). */
export async function updateContact(
  tx: WriteTx,
  actor: Actor,
  id: string,
  input: UpdateContactInput,
  deps: CommandDeps,
): Promise<ContactView> {
  const row = await findContact(scoped(tx.db, actor), id);
  if (!row) throw notFound('contact', id);
  checkContactFields(input);
  const changes: Parameters<typeof writeContact>[2] = { updated_at: deps.clock.now() };
  if (input.phone !== undefined) changes.phone = input.phone;
  if (input.name !== undefined) changes.name = optionalText(input.name);
  if (input.email !== undefined) changes.email = input.email;
  if (input.company !== undefined) changes.company = optionalText(input.company);
  await writeContact(tx.db, id, changes);
  const contact = presentContact({ ...row, ...changes });
  tx.publish('contact.changed', { ...scopeOf(actor), contact });
  return contact;
}
