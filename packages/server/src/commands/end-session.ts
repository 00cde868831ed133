import { sha256Hex } from '../lib/secrets.ts';
import { deleteSession } from '../store/repos/sessions.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/** Ends the session of this cookie token. */
export async function endSession(tx: WriteTx, token: string): Promise<null> {
  const tokenHash = sha256Hex(token);
  await deleteSession(tx.db, tokenHash);
  // Its open realtime channels close at once, on every instance (realtime/hub.ts).
  tx.publish(SESSION_ENDED, { tokenHash });
  return null;
}

/** The signal of a session that ended: `{ tokenHash }`. */
export const SESSION_ENDED = 'session.ended';
