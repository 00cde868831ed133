import { ApiError } from '../domain/errors.ts';
import { findApiKey, revokeApiKey as markRevoked } from '../store/repos/api-keys.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { validKeyFact } from './authenticate-api-key.ts';
import type { CommandDeps } from './context.ts';

/**
 * Revokes a key. Authentication caches valid keys (api-key-cache.ts); the
 * published signal drops the key from this process's cache after the commit,
 * and other processes see the commit through `store.foreignChanges()`, so the
 * next request with the key gets `401` wherever it lands.
 * `accountId`, when given, confines the revocation to that account.
 */
export async function revokeApiKey(
  tx: WriteTx,
  input: { keyId: string; accountId?: string },
  deps: CommandDeps,
): Promise<{ id: string; revoked: true }> {
  const key = await findApiKey(tx.db, input.keyId);
  if (!key || (input.accountId !== undefined && key.account_id !== input.accountId)) {
    throw new ApiError('not_found', `No such API key: '${input.keyId}'.`);
  }
  await markRevoked(tx.db, key.id, deps.clock.now());
  // Later units of this batch must see the key revoked.
  tx.shared.delete(validKeyFact(key.key_hash));
  tx.publish('api_key.revoked', { id: key.id, keyHash: key.key_hash });
  return { id: key.id, revoked: true };
}
