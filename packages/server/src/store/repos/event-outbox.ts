import type { Kysely } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';
import { compiled, rowFrom, valuesIn } from '../engine/compiled.ts';
import type { DB } from '../schema.ts';
import { EVENT_COLUMNS, insertEvent, type EventRow } from './events.ts';
import { listEnabledWebhookEndpoints, type WebhookEndpointRow } from './webhook-endpoints.ts';
import { ownedBy, scoped } from '../scope.ts';

const eventColumns = Object.keys(EVENT_COLUMNS) as (keyof EventRow)[];

/**
 * On PostgreSQL, the event's insert is a data-modifying CTE of the statement that
 * lists the endpoints its fan-out chooses from: a receipt's writes run one
 * statement per round trip on the carrier lane. (The CTE's row is not among what
 * the select reads, and needs not be.)
 */
const insertEventListingEndpoints = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  db
    .with('event', (q) => q.insertInto('events').values(rowFrom(eventColumns, values)))
    .selectFrom('webhook_endpoints')
    .select(['id', 'events_json'])
    .where(
      ownedBy({
        accountId: values[eventColumns.length] as string,
        mode: values[eventColumns.length + 1] as EventRow['mode'],
      }),
    )
    .where('enabled', '=', 1)
    .where('deleted_at', 'is', null),
);

/**
 * Appends an event to the outbox and returns the enabled endpoints of its account
 * and mode, which its fan-out chooses from. Call it inside the transaction of the
 * change it reports.
 */
export async function insertEventAndListEndpoints(
  db: Kysely<DB>,
  event: EventRow,
): Promise<Pick<WebhookEndpointRow, 'id' | 'events_json'>[]> {
  if (capabilitiesOf(db).roundTrips) {
    return (await insertEventListingEndpoints(
      db,
      ...valuesIn(event, eventColumns),
      event.account_id,
      event.mode,
    )) as Pick<WebhookEndpointRow, 'id' | 'events_json'>[];
  }
  await insertEvent(db, event);
  return listEnabledWebhookEndpoints(scoped(db, { accountId: event.account_id, mode: event.mode }));
}

/**
 * Appends several events to the outbox in one statement (PostgreSQL only) and
 * returns the enabled endpoints of their accounts and modes, each with its scope.
 */
export async function insertEventsAndListEndpoints(
  db: Kysely<DB>,
  events: EventRow[],
): Promise<Pick<WebhookEndpointRow, 'id' | 'events_json' | 'account_id' | 'mode'>[]> {
  const scopes = new Map(events.map((e) => [`${e.mode}:${e.account_id}`, e]));
  return db
    .with('event', (q) => q.insertInto('events').values(events))
    .selectFrom('webhook_endpoints')
    .select(['id', 'events_json', 'account_id', 'mode'])
    .where((eb) =>
      eb.or([...scopes.values()].map((e) => ownedBy({ accountId: e.account_id, mode: e.mode }))),
    )
    .where('enabled', '=', 1)
    .where('deleted_at', 'is', null)
    .execute();
}
