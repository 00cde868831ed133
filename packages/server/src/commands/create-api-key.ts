import { newId, randomBase62 } from '../lib/ids.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { ApiError } from '../domain/errors.ts';
import { KEY_RANDOM_LENGTH, keyPrefix } from '../domain/api-keys.ts';
import type { Mode } from '../domain/modes.ts';
import { findAccount } from '../store/repos/accounts.ts';
import { insertApiKey } from '../store/repos/api-keys.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** A new key. `secret` exists only in this value: the store keeps its hash. */
export interface CreatedApiKey {
  id: string;
  mode: Mode;
  secret: string;
  createdAt: string;
}

/** Issues an API key for an account in one mode. */
export async function createApiKey(
  tx: WriteTx,
  input: { accountId: string; mode: Mode },
  deps: CommandDeps,
): Promise<CreatedApiKey> {
  if (!(await findAccount(tx.db, input.accountId))) {
    throw new ApiError('not_found', `No such account: '${input.accountId}'.`);
  }
  const now = deps.clock.now();
  const secret = keyPrefix(input.mode) + randomBase62(KEY_RANDOM_LENGTH);
  const id = newId('key', now);
  await insertApiKey(tx.db, {
    id,
    account_id: input.accountId,
    mode: input.mode,
    key_hash: sha256Hex(secret),
    last4: secret.slice(-4),
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  });
  return { id, mode: input.mode, secret, createdAt: new Date(now).toISOString() };
}
