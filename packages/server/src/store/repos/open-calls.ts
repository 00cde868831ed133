import type { Kysely, Selectable } from 'kysely';
import type { DB, OpenCallsTable } from '../schema.ts';

export type OpenCallRow = Selectable<OpenCallsTable>;

/** Keeps an answered call; a repeated report of the same answer changes nothing. */
export async function insertOpenCall(db: Kysely<DB>, row: OpenCallRow): Promise<void> {
  await db
    .insertInto('open_calls')
    .values(row)
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

/** The open call `callId`, removed; undefined when it was not open. */
export async function takeOpenCall(
  db: Kysely<DB>,
  callId: string,
): Promise<OpenCallRow | undefined> {
  const row = await db
    .selectFrom('open_calls')
    .selectAll()
    .where('call_id', '=', callId)
    .executeTakeFirst();
  if (row) await db.deleteFrom('open_calls').where('call_id', '=', callId).execute();
  return row;
}

/** Every open call, whichever run holds it: the sweep's view (routing, not an account's data). */
export function listOpenCalls(db: Kysely<DB>): Promise<OpenCallRow[]> {
  return db.selectFrom('open_calls').selectAll().orderBy('answered_at').execute();
}

/** Marks the run's calls `callIds` as seen running at `now`. */
export async function touchOpenCalls(
  db: Kysely<DB>,
  runId: string,
  callIds: string[],
  now: number,
): Promise<void> {
  if (callIds.length === 0) return;
  await db
    .updateTable('open_calls')
    .set({ seen_at: now })
    .where('run_id', '=', runId)
    .where('call_id', 'in', callIds)
    .execute();
}
