import type { Kysely, Selectable } from 'kysely';
import type { DB, IdempotencyKeysTable, Mode } from '../schema.ts';

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

/** Records the first response under an idempotency key. Fails on a duplicate key. */
export async function insertIdempotencyKey(db: Kysely<DB>, row: IdempotencyKeyRow): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

/** The record for a key, if it is newer than `since`. */
export function findIdempotencyKey(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  key: string,
  since: number,
): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('key', '=', key)
    .where('created_at', '>', since)
    .executeTakeFirst();
}

/** Forgets an expired record of one key, so the key can be used afresh. */
export async function deleteExpiredIdempotencyKey(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  key: string,
  before: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('key', '=', key)
    .where('created_at', '<=', before)
    .execute();
}

/** Forgets every record older than `before` (a periodic sweep). */
export async function deleteIdempotencyKeysBefore(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
