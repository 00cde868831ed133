import type { Kysely, Selectable } from 'kysely';
import { compiledInsert } from '../compiled.ts';
import type { DB, EventsTable, Mode } from '../schema.ts';

export type EventRow = Selectable<EventsTable>;

/** Every column of `events`. */
export const EVENT_COLUMNS = {
  id: true,
  account_id: true,
  mode: true,
  type: true,
  data: true,
  created_at: true,
  endpoint_id: true,
} as const satisfies Record<keyof EventsTable, true>;

// Compiled once: every delivery receipt and inbound message records one (see store/compiled.ts).
const insertEventRow = compiledInsert('events', EVENT_COLUMNS);

/** Appends an event to the outbox. Call it inside the transaction of the change it reports. */
export async function insertEvent(db: Kysely<DB>, row: EventRow): Promise<void> {
  await insertEventRow(db, row);
}

/** Several events by id alone, in no particular order (the webhook worker, per claim). */
export function findEventsByIds(db: Kysely<DB>, ids: string[]): Promise<EventRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
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
