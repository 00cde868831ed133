import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sha256Hex, verifyPassword } from '../lib/secrets.ts';
import { findUserByEmail, type UserRow } from '../store/repos/users.ts';
import { deleteSession, insertSession } from '../store/repos/sessions.ts';
import type { DB } from '../store/schema.ts';
import type { WriteTx } from '../store/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** How long a softphone sign-in lasts. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

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

/** A new session: the cookie token (only its hash is stored) and the CSRF token. */
export async function createSession(
  tx: WriteTx,
  user: UserRow,
  deps: CommandDeps,
): Promise<{ token: string; csrfToken: string; expiresAt: number }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = now + SESSION_TTL_MS;
  await insertSession(tx.db, {
    token_hash: sha256Hex(token),
    user_id: user.id,
    account_id: user.account_id,
    csrf_token: csrfToken,
    created_at: now,
    expires_at: expiresAt,
  });
  return { token, csrfToken, expiresAt };
}

/** Ends the session of this cookie token. */
export async function endSession(tx: WriteTx, token: string): Promise<void> {
  const tokenHash = sha256Hex(token);
  await deleteSession(tx.db, tokenHash);
  // Its open realtime channels close at once, on every instance (realtime/hub.ts).
  tx.publish(SESSION_ENDED, { tokenHash });
}

/** The signal of a session that ended: `{ tokenHash }`. */
export const SESSION_ENDED = 'session.ended';
