import type { Kysely, Selectable } from 'kysely';
import type { ContactsTable, DB } from '../schema.ts';
import { namesNothing } from '../text-limits.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type ContactRow = Selectable<ContactsTable>;

/** Inserts a contact. */
export async function insertContact(db: Kysely<DB>, row: ContactRow): Promise<void> {
  await db.insertInto('contacts').values(row).execute();
}

/** One contact, only within its own account and mode. */
export function findContact(scope: Scope, id: string): Promise<ContactRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return scope.db
    .selectFrom('contacts')
    .selectAll()
    .where('id', '=', id)
    .where(ownedBy(scope))
    .executeTakeFirst();
}

/** Caller ID: the newest contact with this phone (ids are time-ordered). */
export function findNewestContactByPhone(
  scope: Scope,
  phone: string,
): Promise<ContactRow | undefined> {
  return scope.db
    .selectFrom('contacts')
    .selectAll()
    .where(ownedBy(scope))
    .where('phone', '=', phone)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Changes a contact's fields. */
export async function updateContact(
  db: Kysely<DB>,
  id: string,
  values: Partial<Pick<ContactRow, 'name' | 'phone' | 'email' | 'company' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('contacts').set(values).where('id', '=', id).execute();
}

/** Removes a contact from the directory. */
export async function deleteContact(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('contacts').where('id', '=', id).execute();
}

/** The directory, newest first, optionally filtered by a name, phone, email or company fragment. */
export function listContacts(scope: Scope, limit: number, search?: string): Promise<ContactRow[]> {
  let q = scope.db.selectFrom('contacts').selectAll().where(ownedBy(scope));
  if (search) {
    // lower() on both sides: SQLite's LIKE and PostgreSQL's differ in case sensitivity.
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or(
        (['name', 'phone', 'email', 'company'] as const).map((column) =>
          eb(eb.fn('lower', [eb.ref(column)]), 'like', eb.val(pattern)),
        ),
      ),
    );
  }
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** Caller ID for many numbers at once: phone → newest contact's name (when it has one). */
export async function namesByPhone(scope: Scope, phones: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (phones.length === 0) return names;
  const rows = await scope.db
    .selectFrom('contacts')
    .select(['phone', 'name'])
    .where(ownedBy(scope))
    .where('phone', 'in', phones)
    .orderBy('id', 'asc')
    .execute();
  // Ascending ids: a newer contact overwrites an older one with the same phone.
  for (const row of rows) if (row.name) names.set(row.phone, row.name);
  return names;
}
