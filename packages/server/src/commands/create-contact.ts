import { newId } from '../lib/ids.ts';
import { isE164 } from '../domain/phone.ts';
import { validationError } from '../domain/errors.ts';
import { presentContact, type ContactView } from '../presenters/contact.ts';
import { insertContact } from '../store/repos/contacts.ts';
import type { WriteTx } from '../store/write-queue.ts';
import type { Actor, CommandDeps } from './context.ts';
import { recordEvent } from './record-event.ts';

/** Input of `POST /v1/contacts` (spec 2.4). */
export interface CreateContactInput {
  phone: string;
  name?: string | undefined;
  email?: string | undefined;
  company?: string | undefined;
}

// Deliberately plain: one @, no spaces, a dot in the domain. Deliverability is the mail server's business.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function optionalText(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** Adds a contact to the shared directory and records `contact.created` in the same transaction. */
export async function createContact(
  tx: WriteTx,
  actor: Actor,
  input: CreateContactInput,
  deps: CommandDeps,
): Promise<ContactView> {
  if (!isE164(input.phone)) {
    throw validationError('phone', 'phone must be an E.164 number, such as +14155550100.');
  }
  if (input.email !== undefined && !EMAIL.test(input.email)) {
    throw validationError('email', 'email must be an email address, such as ada@example.com.');
  }
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
  };
  await insertContact(tx.db, row);
  const contact = presentContact(row);
  await recordEvent(tx, actor, 'contact.created', contact, now);
  return contact;
}
