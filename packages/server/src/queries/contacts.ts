import { notFound } from '../domain/errors.ts';
import { presentContact, type ContactView } from '../presenters/contact.ts';
import { findContact, listContacts } from '../store/repos/contacts.ts';
import type { Scope } from '../store/scope.ts';

/** One contact of the scope; `not_found` for another's. */
export async function getContact(scope: Scope, id: string): Promise<ContactView> {
  const row = await findContact(scope, id);
  if (!row) throw notFound('contact', id);
  return presentContact(row);
}

/** The directory, newest first, optionally filtered by a name, phone, email or company fragment. */
export async function searchDirectory(
  scope: Scope,
  limit: number,
  search?: string,
): Promise<ContactView[]> {
  return (await listContacts(scope, limit, search)).map(presentContact);
}
