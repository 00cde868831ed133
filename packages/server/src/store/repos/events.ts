import type { Kysely, Selectable } from 'kysely';
import type { DB, EventsTable, Mode } from '../schema.ts';

export type EventRow = Selectable<EventsTable>;

/** Appends an event to the outbox. Call it inside the transaction of the change it reports. */
export async function insertEvent(db: Kysely<DB>, row: EventRow): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

/** Events of an account and mode, oldest first, optionally of one type. */
export function listEvents(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  type?: string,
): Promise<EventRow[]> {
  let q = db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('id', 'asc').execute();
}
