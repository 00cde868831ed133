import type { Kysely, Selectable } from 'kysely';
import { compiled } from '../engine/compiled.ts';
import type { ApiKeysTable, DB, Mode } from '../schema.ts';
import { ownedByAccount, type AccountScope } from '../scope.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** Inserts a key (its hash; the secret is never stored). */
export async function insertApiKey(db: Kysely<DB>, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

// Compiled once: every request that reads, and every change, checks its key with it.
const selectApiKeyByHash = compiled((db: Kysely<DB>, keyHash: string) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash),
);

/** The key with this hash, revoked or not. */
export async function findApiKeyByHash(
  db: Kysely<DB>,
  keyHash: string,
): Promise<ApiKeyRow | undefined> {
  return (await selectApiKeyByHash(db, keyHash))[0];
}

/** One key by id. */
export function findApiKey(db: Kysely<DB>, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every key of an account (of one mode, when given), newest first. */
export function listApiKeys(scope: AccountScope, mode?: Mode): Promise<ApiKeyRow[]> {
  let q = scope.db.selectFrom('api_keys').selectAll().where(ownedByAccount(scope.accountId));
  if (mode) q = q.where('mode', '=', mode);
  return q.orderBy('id', 'desc').execute();
}

/** Marks a key revoked; returns false when it does not exist or was already revoked. */
export async function revokeApiKey(db: Kysely<DB>, id: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records when a key was last used. */
export async function touchApiKey(db: Kysely<DB>, id: string, at: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
