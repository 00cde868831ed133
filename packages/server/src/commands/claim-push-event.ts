import type { WriteTx } from '../store/engine/write-queue.ts';
import { deletePushClaimsBefore, insertPushClaim } from '../store/repos/push-claims.ts';
import type { CommandDeps } from './context.ts';

/**
 * A claim outlives every instance's hearing of its change (NOTIFY arrives within
 * seconds) by far; older ones are forgotten.
 */
export const PUSH_CLAIM_KEPT_MS = 24 * 60 * 60 * 1000;
// A few per claim keep the table at a day's claims without a sweep of its own.
const FORGOTTEN_PER_CLAIM = 4;

/**
 * Claims the Web Push of one notifiable change for this instance: each instance of the
 * worker role hears every change, and only the one whose claim is recorded pushes it
 * (docs/behaviour.md#notifications).
 */
export async function claimPushEvent(
  tx: WriteTx,
  eventKey: string,
  deps: CommandDeps,
): Promise<{ claimed: boolean }> {
  const now = deps.clock.now();
  const claimed = await insertPushClaim(tx.db, eventKey, now);
  if (claimed) await deletePushClaimsBefore(tx.db, now - PUSH_CLAIM_KEPT_MS, FORGOTTEN_PER_CLAIM);
  return { claimed };
}
