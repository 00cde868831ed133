import { ApiError, notFound, validationError } from '../domain/errors.ts';
import { countEnabledOwners, findTeammate, updateUser } from '../store/repos/users.ts';
import { accountScoped } from '../store/scope.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { endUserSessions } from './end-user-sessions.ts';
import { presentTeammate, type Teammate } from '../presenters/teammate.ts';

export interface UpdateTeammateInput {
  accountId: string;
  /** The owner asking: they cannot demote or disable themselves. */
  byUserId: string;
  userId: string;
  role?: 'owner' | 'member' | undefined;
  disabled?: boolean | undefined;
  /** A new password, already hashed (scrypt, outside the transaction). */
  passwordHash?: string | undefined;
}

/**
 * An owner changes a teammate's role, disables or enables their login, or resets their
 * password. Disabling and a reset end every session of theirs at once, live channels
 * included; the account always keeps an enabled owner (docs/behaviour.md#team).
 */
export async function updateTeammate(
  tx: WriteTx,
  input: UpdateTeammateInput,
  deps: CommandDeps,
): Promise<Teammate> {
  const scope = accountScoped(tx.db, input.accountId);
  const user = await findTeammate(scope, input.userId);
  if (!user) throw notFound('teammate', input.userId);
  const self = user.id === input.byUserId;
  if (self && input.role === 'member') {
    throw validationError('role', 'You cannot make yourself a member; ask another owner.');
  }
  if (self && input.disabled === true) {
    throw validationError('disabled', 'You cannot disable your own login.');
  }
  const patch: Parameters<typeof updateUser>[2] = {};
  if (input.role !== undefined) patch.role = input.role;
  if (input.disabled !== undefined) {
    patch.disabled_at = input.disabled ? (user.disabled_at ?? deps.clock.now()) : null;
  }
  if (input.passwordHash !== undefined) patch.password_hash = input.passwordHash;
  if (Object.keys(patch).length === 0) {
    throw new ApiError('validation_error', 'Give a role, disabled or password to change.');
  }
  await updateUser(tx.db, user.id, patch);
  if ((await countEnabledOwners(scope)) === 0) {
    throw validationError('role', 'The account needs at least one enabled owner.');
  }
  // A reset password must not leave an old sign-in working, nor a disabled login.
  if (patch.disabled_at != null || (input.passwordHash !== undefined && !self)) {
    await endUserSessions(tx, user.id);
  }
  return presentTeammate({ ...user, ...patch });
}
