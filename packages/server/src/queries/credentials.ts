import type { Kysely } from 'kysely';
import { verifyPassword } from '../lib/secrets.ts';
import { findUserByEmail, type UserRow } from '../store/repos/users.ts';
import type { DB } from '../store/schema.ts';

// A fixed hash to verify against when the email is unknown, so an unknown
// email takes as long as a wrong password and reveals nothing.
const DUMMY_HASH =
  'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** The user these credentials belong to, or null. Slow by design (scrypt); runs outside any transaction. */
export async function checkCredentials(
  db: Kysely<DB>,
  email: string,
  password: string,
): Promise<UserRow | null> {
  const user = await findUserByEmail(db, email.trim());
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  return user && ok ? user : null;
}
