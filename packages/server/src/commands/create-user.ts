import { newId } from '../lib/ids.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { isEmail } from '../domain/contact-rules.ts';
import { findAccount } from '../store/repos/accounts.ts';
import { findUserByEmail, insertUser } from '../store/repos/users.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** A softphone user, without the password hash. */
export interface CreatedUser {
  id: string;
  accountId: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
}

/** Shortest password accepted for a softphone login. */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * Creates a softphone login. The password must already be hashed
 * (scrypt, see lib/secrets.ts): hashing is slow by design and stays out of the
 * shared write transaction.
 */
export async function createUser(
  tx: WriteTx,
  input: {
    accountId: string;
    email: string;
    name?: string | undefined;
    role: 'owner' | 'member';
    passwordHash: string;
  },
  deps: CommandDeps,
): Promise<CreatedUser> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) throw validationError('email', 'email must be an email address.');
  if (!(await findAccount(tx.db, input.accountId))) {
    throw new ApiError('not_found', `No such account: '${input.accountId}'.`);
  }
  if (await findUserByEmail(tx.db, email)) {
    throw validationError('email', `A user with email ${email} already exists.`);
  }
  const now = deps.clock.now();
  const user: CreatedUser = {
    id: newId('usr', now),
    accountId: input.accountId,
    email,
    name: input.name?.trim() || email.split('@')[0]!,
    role: input.role,
  };
  await insertUser(tx.db, {
    id: user.id,
    account_id: user.accountId,
    email: user.email,
    name: user.name,
    role: user.role,
    password_hash: input.passwordHash,
    created_at: now,
  });
  return user;
}
