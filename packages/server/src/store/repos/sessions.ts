import type { Kysely, Selectable } from 'kysely';
import { claiming } from '../engine/capabilities.ts';
import type { DB, SessionsTable } from '../schema.ts';

export type SessionRow = Selectable<SessionsTable>;

/** Inserts a session. */
export async function insertSession(db: Kysely<DB>, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The unexpired session with this token hash. */
export function findSession(
  db: Kysely<DB>,
  tokenHash: string,
  now: number,
): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Ends a session (sign-out). */
export async function deleteSession(db: Kysely<DB>, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends every session of a user; returns their token hashes (to close their live channels). */
export async function deleteSessionsOfUser(db: Kysely<DB>, userId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .returning('token_hash')
    .execute();
  return rows.map((r) => r.token_hash);
}

/**
 * Forgets up to `limit` sessions that expired at or before `now`, oldest first (the
 * retention sweep); returns how many. Rows another transaction holds are skipped on
 * PostgreSQL (see deleteIdempotencyKeysBefore).
 */
export async function deleteExpiredSessions(
  db: Kysely<DB>,
  now: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where('token_hash', 'in', (sub) => {
      const expired = sub
        .selectFrom('sessions')
        .select('token_hash')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit);
      return claiming(db, expired);
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
