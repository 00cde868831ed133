import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../lib/secrets.ts';
import type { UserRow } from '../store/repos/users.ts';
import { insertSession } from '../store/repos/sessions.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** How long a softphone sign-in lasts. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

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
