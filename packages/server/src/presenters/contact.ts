import type { ContactRow } from '../store/repos/contacts.ts';
import { isoTime } from './time.ts';

/** A Contact as the API, webhooks and the softphone show it. */
export interface ContactView {
  id: string;
  object: 'contact';
  name: string | null;
  phone: string;
  email: string | null;
  company: string | null;
  createdAt: string;
}

/** Turns a contact row into its public shape. */
export function presentContact(row: ContactRow): ContactView {
  return {
    id: row.id,
    object: 'contact',
    name: row.name,
    phone: row.phone,
    email: row.email,
    company: row.company,
    createdAt: isoTime(row.created_at),
  };
}
