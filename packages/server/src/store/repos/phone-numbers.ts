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
 * The live connection a text from `phone` leaves through: the number's own, or its account's
 * first (oldest) connection; undefined when the number is not live or its account has none.
 * Removed connections are passed over.
 */
export async function findLiveRoute(
  db: Kysely<DB>,
  phone: string,
): Promise<{ connectionId: string } | undefined> {
  const row = await db
    .selectFrom('phone_numbers as pn')
    .select((eb) =>
      eb.fn
        .coalesce(
          eb
            .selectFrom('carrier_connections as own')
            .select('own.id')
            .whereRef('own.id', '=', 'pn.carrier_id')
            .where('own.deleted_at', 'is', null)
            .where('own.type', '!=', 'sip'),
          eb
            .selectFrom('carrier_connections as first')
            .select('first.id')
            .whereRef('first.account_id', '=', 'pn.account_id')
            .where('first.deleted_at', 'is', null)
            .where('first.type', '!=', 'sip')
            .orderBy('first.id')
            .limit(1),
        )
        .as('connection_id'),
    )
    .where('pn.mode', '=', 'live')
    .where('pn.phone', '=', phone)
    .executeTakeFirst();
  return row?.connection_id ? { connectionId: row.connection_id } : undefined;
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
