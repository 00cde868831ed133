/**
 * Row types of every table, as both engines return them: ids are prefixed text,
 * times are epoch milliseconds, booleans are 0/1 and JSON is serialised text.
 */

import type { Mode } from '../domain/modes.ts';
export type { Mode } from '../domain/modes.ts';

export interface AccountsTable {
  id: string;
  name: string;
  help_reply: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  mode: Mode;
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  key_hash: string;
  /** Last four characters of the secret, to tell keys apart in the dashboard. */
  last4: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface PhoneNumbersTable {
  id: string;
  account_id: string;
  mode: Mode;
  phone: string;
  created_at: number;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
  password_hash: string;
  created_at: number;
}

export interface ContactsTable {
  id: string;
  account_id: string;
  mode: Mode;
  name: string | null;
  phone: string;
  email: string | null;
  company: string | null;
  created_at: number;
}

/** The outbox: every event is written in the transaction of the change that causes it. */
export interface EventsTable {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  /** JSON of the envelope's `data`. */
  data: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  mode: Mode;
  key: string;
  /** SHA-256 of method, path and canonical body: another body under the same key is a conflict. */
  request_hash: string;
  status_code: number;
  /** JSON of the first response. */
  response_body: string;
  created_at: number;
}

/** The whole database, as Kysely sees it. */
export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  phone_numbers: PhoneNumbersTable;
  users: UsersTable;
  contacts: ContactsTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
}
