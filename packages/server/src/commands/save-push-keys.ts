import type { WriteTx } from '../store/engine/write-queue.ts';
import { findPushKeys, insertPushKeysIfAbsent } from '../store/repos/push.ts';
import type { WebhookDeps } from './context.ts';

/**
 * Keeps a VAPID key pair for the account unless it has one, and answers the public key
 * it keeps: made once, so every browser's subscription stays valid. The private key is
 * stored sealed by the secret box.
 */
export async function savePushKeys(
  tx: WriteTx,
  input: { accountId: string; publicKey: string; privateKey: string },
  deps: WebhookDeps,
): Promise<{ publicKey: string }> {
  await insertPushKeysIfAbsent(tx.db, {
    account_id: input.accountId,
    public_key: input.publicKey,
    private_key_sealed: deps.seal(input.privateKey),
    created_at: deps.clock.now(),
  });
  const kept = await findPushKeys(tx.db, input.accountId);
  return { publicKey: kept!.public_key };
}
