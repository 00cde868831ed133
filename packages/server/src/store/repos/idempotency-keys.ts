import type { Kysely, Selectable } from 'kysely';
import { claiming } from '../engine/capabilities.ts';
import type { DB, IdempotencyKeysTable } from '../schema.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

/** Records the first response under an idempotency key. Fails on a duplicate key. */
export async function insertIdempotencyKey(db: Kysely<DB>, row: IdempotencyKeyRow): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

/** The record for a key, if it is newer than `since`. */
export function findIdempotencyKey(
  scope: Scope,
  key: string,
  since: number,
): Promise<IdempotencyKeyRow | undefined> {
  return scope.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where(ownedBy(scope))
    .where('key', '=', key)
    .where('created_at', '>', since)
    .executeTakeFirst();
}

/** Forgets an expired record of one key, so the key can be used afresh. */
export async function deleteExpiredIdempotencyKey(
  scope: Scope,
  key: string,
  before: number,
): Promise<void> {
  await scope.db
    .deleteFrom('idempotency_keys')
    .where(ownedBy(scope))
    .where('key', '=', key)
    .where('created_at', '<=', before)
    .execute();
}

/**
 * Forgets up to `limit` records made at or before `before`, oldest first (the retention
 * sweep); returns how many. On PostgreSQL rows another transaction holds are skipped,
 * not waited for: two instances sweeping at once take different rows, and a sweep
 * never waits in a lock (so never in a deadlock) behind a request reusing a key.
 */
export async function deleteIdempotencyKeysBefore(
  db: Kysely<DB>,
  before: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(({ eb, refTuple }) =>
      eb(refTuple('account_id', 'mode', 'key'), 'in', (sub) => {
        const oldest = sub
          .selectFrom('idempotency_keys')
          .select(['account_id', 'mode', 'key'])
          .where('created_at', '<=', before)
          .orderBy('created_at')
          .limit(limit);
        return claiming(db, oldest).$asTuple('account_id', 'mode', 'key');
      }),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
