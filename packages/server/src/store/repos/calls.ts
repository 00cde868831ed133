import type { Kysely, Selectable } from 'kysely';
import type { CallsTable, DB } from '../schema.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type CallRow = Selectable<CallsTable>;

/** Inserts a call record. */
export async function insertCall(db: Kysely<DB>, row: CallRow): Promise<void> {
  await db.insertInto('calls').values(row).execute();
}

/** Call history of an account and mode, newest first. */
export function listCalls(scope: Scope, limit: number): Promise<CallRow[]> {
  return scope.db
    .selectFrom('calls')
    .selectAll()
    .where(ownedBy(scope))
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
