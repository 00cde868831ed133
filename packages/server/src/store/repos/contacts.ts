import type { Kysely, Selectable } from 'kysely';
import type { ContactsTable, DB, Mode } from '../schema.ts';

export type ContactRow = Selectable<ContactsTable>;

/** Inserts a contact. */
export async function insertContact(db: Kysely<DB>, row: ContactRow): Promise<void> {
  await db.insertInto('contacts').values(row).execute();
}

/** One contact, only within its own account and mode. */
export function findContact(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  id: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .executeTakeFirst();
}

/** Caller ID: the newest contact with this phone (ids are time-ordered). */
export function findNewestContactByPhone(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  phone: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('phone', '=', phone)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
