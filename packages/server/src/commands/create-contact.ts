import { newId } from '../lib/ids.ts';
import { checkContactFields, optionalText } from '../domain/contact-rules.ts';
import { presentContact, type ContactView } from '../presenters/contact.ts';
import { insertContact } from '../store/repos/contacts.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scopeOf, type Actor, type CommandDeps } from './context.ts';
import { recordEvent } from './record-event.ts';

/** Input of `POST /v1/contacts` (spec 2.4). */
export interface CreateContactInput {
  phone: string;
  name?: string | undefined;
  email?: string | undefined;
  company?: string | undefined;
}

/** Adds a contact to the shared directory and records `contact.created` in the same transaction. */
export async function createContact(
  tx: WriteTx,
  actor: Actor,
  input: CreateContactInput,
  deps: CommandDeps,
): Promise<ContactView> {
  checkContactFields(input);
  const now = deps.clock.now();
  const row = {
    id: newId('ct', now),
    account_id: actor.accountId,
    mode: actor.mode,
    name: optionalText(input.name),
    phone: input.phone,
    email: input.email ?? null,
    company: optionalText(input.company),
    created_at: now,
    updated_at: null,
  };
  await insertContact(tx.db, row);
  const contact = presentContact(row);
  await recordEvent(tx, actor, 'contact.created', contact, now);
  tx.publish('contact.changed', { ...scopeOf(actor), contact });
  return contact;
}
