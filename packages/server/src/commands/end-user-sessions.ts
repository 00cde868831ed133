import { deleteSessionsOfUser } from '../store/repos/sessions.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { SESSION_ENDED } from './end-session.ts';

/**
 * Ends every session of a user and, once committed, closes their live channels on every
 * instance (realtime/hub.ts): a removed or disabled teammate's open tab is signed out at once.
 * Part of the team commands, not a command of its own.
 */
export async function endUserSessions(tx: WriteTx, userId: string): Promise<void> {
  for (const tokenHash of await deleteSessionsOfUser(tx.db, userId)) {
    tx.publish(SESSION_ENDED, { tokenHash });
  }
}
