import { sql, type Kysely, type Selectable } from 'kysely';
import { capabilitiesOf, holdingUntilCommit } from '../engine/capabilities.ts';
import { compiledInsert, compiledSql } from '../engine/compiled.ts';
import type { DB, EventsTable } from '../schema.ts';
import { ownedBy, type Scope } from '../scope.ts';

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

// Compiled once: every delivery receipt and inbound message records one (see store/engine/compiled.ts).
const insertEventRow = compiledInsert('events', EVENT_COLUMNS);

/** Appends an event to the outbox. Call it inside the transaction of the change it reports. */
export async function insertEvent(db: Kysely<DB>, row: EventRow): Promise<void> {
  await insertEventRow(db, row);
}

/**
 * The events of a list of ids on PostgreSQL: one array parameter, not an `in` list of
 * as many parameters as ids, whose SQL Kysely built again at every claim and
 * PostgreSQL parsed and planned as a new statement for each length. For 64 events,
 * 200–360 µs of PostgreSQL's CPU and 220–515 µs of the caller's became 110–240 and
 * 143–312 (docs/benchmarks.md). Planned for its list at each call, not prepared by
 * name: a generic plan made while the table was a page or two would be a sequential
 * scan, kept on that connection for good as the table grows (see ShapeOptions).
 */
const eventsByIdsOnPostgres = compiledSql(
  (ids: unknown) => sql<EventRow>`select * from "events" where "id" = any(${ids}::text[])`,
  { planEachCall: true },
);

/** Several events by id alone, in no particular order (the webhook worker, per claim). */
export function findEventsByIds(db: Kysely<DB>, ids: string[]): Promise<EventRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  if (capabilitiesOf(db).roundTrips) return eventsByIdsOnPostgres(db, ids);
  return db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
}

/** Which of a scope's events a recovery re-sends: those of some types, since a time. */
export interface Recovery {
  types: string[];
  since: number;
}

/** Where a page of a recovery ends: its last event's time and id. */
export type RecoveryCursor = Pick<EventRow, 'id' | 'created_at'>;

/**
 * One page of the events of `scope`, in (created_at, id) order, after `after`
 * (none: from the start). Test events, sent to one endpoint only, are never
 * among them. A recovery may span any number of events: it walks them a page
 * at a time (keyset, on the `events_account_time_id` index) rather than reading
 * them all, or binding one parameter per event, which SQLite refuses past 32 766.
 */
export function pageOfRecoverableEvents(
  scope: Scope,
  recovery: Recovery,
  after: RecoveryCursor | null,
  limit: number,
): Promise<RecoveryCursor[]> {
  const page = scope.db
    .selectFrom('events')
    .select(['id', 'created_at'])
    .where(ownedBy(scope))
    .where((eb) =>
      after
        ? eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.created_at, after.id))
        : eb('created_at', '>=', recovery.since),
    )
    .where('endpoint_id', 'is', null)
    .where('type', 'in', recovery.types)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit);
  // On PostgreSQL a page's events are held until the commit: the retention sweep of another
  // lane or instance skips them, or, holding them first, has removed them when this read
  // ends, so no delivery is made for an event it removes (store/repos/expired-events.ts).
  // SQLite has one writer: nothing runs in between.
  return holdingUntilCommit(scope.db, page).execute();
}

/** Events of an account and mode, oldest first, optionally of one type. */
export function listEvents(scope: Scope, type?: string): Promise<EventRow[]> {
  let q = scope.db.selectFrom('events').selectAll().where(ownedBy(scope));
  if (type) q = q.where('type', '=', type);
  return q.orderBy('id', 'asc').execute();
}
