import type { WriteTx } from '../store/engine/write-queue.ts';
import { deletePushSubscription } from '../store/repos/push.ts';
import type { TeamActor } from './team-context.ts';

/** Forgets one of the signed-in user's push subscriptions (push turned off on a device). */
export async function removePushSubscription(
  tx: WriteTx,
  actor: TeamActor,
  endpoint: string,
): Promise<{ endpoint: string; removed: boolean }> {
  return { endpoint, removed: await deletePushSubscription(tx.db, actor.userId, endpoint) };
}
