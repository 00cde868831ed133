import { findSession, type SessionRow } from '../store/repos/sessions.ts';
import { findUser, type UserRow } from '../store/repos/users.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';

/** The live session of a cookie token's hash and its user, or null (expired, ended, unknown, or its login disabled). */
export async function findSignedInUser(
  db: Kysely<DB>,
  tokenHash: string,
  now: number,
): Promise<{ session: SessionRow; user: UserRow } | null> {
  const session = await findSession(db, tokenHash, now);
  if (!session) return null;
  const user = await findUser(db, session.user_id);
  // A disabled login's sessions were ended with it; this also holds where that change
  // has not reached (another instance's cache of nothing: every request looks it up).
  return user && user.disabled_at === null ? { session, user } : null;
}
