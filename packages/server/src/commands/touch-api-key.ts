import { touchApiKey as touch } from '../store/repos/api-keys.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/** Records when a key was last used (shown on the dashboard). */
export async function touchApiKey(tx: WriteTx, keyId: string, at: number): Promise<null> {
  await touch(tx.db, keyId, at);
  return null;
}
