import type { Kysely, Selectable } from 'kysely';
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

/** Forgets sessions that have expired. */
export async function deleteExpiredSessions(db: Kysely<DB>, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
