import type { WriteTx } from '../store/engine/write-queue.ts';
import { deleteGoneSubscription } from '../store/repos/push.ts';

/** Forgets a subscription its push service answered 404 or 410 for: that browser left. */
export async function forgetPushSubscription(
  tx: WriteTx,
  endpoint: string,
): Promise<{ endpoint: string }> {
  await deleteGoneSubscription(tx.db, endpoint);
  return { endpoint };
}
