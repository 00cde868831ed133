import type { Kysely, Selectable } from 'kysely';
import type { CallsTable, DB, Mode } from '../schema.ts';

export type CallRow = Selectable<CallsTable>;

/** Inserts a call record. */
export async function insertCall(db: Kysely<DB>, row: CallRow): Promise<void> {
  await db.insertInto('calls').values(row).execute();
}

/** Call history of an account and mode, newest first. */
export function listCalls(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  limit: number,
): Promise<CallRow[]> {
  return db
    .selectFrom('calls')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
