import { notFound, validationError } from '../domain/errors.ts';
import { forgetTeammateTraces } from '../store/repos/teammate-traces.ts';
import { deleteUser, findTeammate } from '../store/repos/users.ts';
import { accountScoped } from '../store/scope.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { endUserSessions } from './end-user-sessions.ts';

/**
 * An owner removes a teammate: the login is forgotten, and with it their devices' push
 * subscriptions, read marks and assignments; every session of theirs ends at once, live
 * channels included. Owners cannot remove themselves, so an owner always remains.
 */
export async function removeTeammate(
  tx: WriteTx,
  input: { accountId: string; byUserId: string; userId: string },
): Promise<{ id: string; removed: true }> {
  const user = await findTeammate(accountScoped(tx.db, input.accountId), input.userId);
  if (!user) throw notFound('teammate', input.userId);
  if (user.id === input.byUserId) {
    throw validationError('id', 'You cannot remove yourself; ask another owner.');
  }
  await endUserSessions(tx, user.id);
  await forgetTeammateTraces(tx.db, user.id);
  await deleteUser(tx.db, user.id);
  return { id: user.id, removed: true };
}
