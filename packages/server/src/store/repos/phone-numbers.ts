import type { Kysely, Selectable } from 'kysely';
import type { DB, Mode, PhoneNumbersTable } from '../schema.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type PhoneNumberRow = Selectable<PhoneNumbersTable>;

/** Inserts a number. The (mode, phone) pair is unique across accounts. */
export async function insertPhoneNumber(db: Kysely<DB>, row: PhoneNumberRow): Promise<void> {
  await db.insertInto('phone_numbers').values(row).execute();
}

/** The account's numbers in one mode, oldest first (the first is the default line). */
export function listPhoneNumbers(scope: Scope): Promise<PhoneNumberRow[]> {
  return scope.db
    .selectFrom('phone_numbers')
    .selectAll()
    .where(ownedBy(scope))
    .orderBy('id', 'asc')
    .execute();
}

/**
 * The number in a mode, whichever account holds it: routing (which account a text to it
 * belongs to), not a read of account data. A caller checks the holder against its actor.
 */
export function findPhoneNumber(
  db: Kysely<DB>,
  mode: Mode,
  phone: string,
): Promise<PhoneNumberRow | undefined> {
  return db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('mode', '=', mode)
    .where('phone', '=', phone)
    .executeTakeFirst();
}
