import { newId } from '../lib/ids.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { capabilitiesOf } from '../store/engine/capabilities.ts';
import {
  insertEventAndListEndpoints,
  insertEventsAndListEndpoints,
} from '../store/repos/event-outbox.ts';
import type { EventRow } from '../store/repos/events.ts';
import { insertDeliveries, type WebhookDeliveryRow } from '../store/repos/webhook-deliveries.ts';
import type { WebhookEndpointRow } from '../store/repos/webhook-endpoints.ts';
import type { Actor } from './context.ts';

/** Every event type of the catalog (spec 6.1). */
export const EVENT_TYPES = [
  'message.received',
  'message.delivered',
  'message.failed',
  'call.completed',
  'call.missed',
  'contact.created',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event to the outbox in the caller's transaction, so the change and
 * its event commit together or not at all; returns the `evt_` id.
 */
export async function recordEvent(
  tx: WriteTx,
  actor: Actor,
  type: EventType,
  data: object,
  now: number,
): Promise<string> {
  const id = newId('evt', now);
  const endpoints = await insertEventAndListEndpoints(tx.db, {
    id,
    account_id: actor.accountId,
    mode: actor.mode,
    type,
    data: JSON.stringify(data),
    created_at: now,
    endpoint_id: null,
  });
  await fanOut(tx, endpoints, id, type, now);
  return id;
}

/** An event to record: what `recordEvent` takes, for `recordEvents`. */
export interface PlannedEvent {
  actor: Actor;
  type: EventType;
  data: object;
  at: number;
}

/**
 * Records several events in the caller's transaction, as `recordEvent` each would,
 * in their order. On PostgreSQL they are one statement with the endpoints' listing
 * (and one more for their deliveries) instead of one or two round trips of the
 * carrier lane each: a batch of receipts records one event per message.
 */
export async function recordEvents(tx: WriteTx, planned: readonly PlannedEvent[]): Promise<void> {
  if (planned.length === 0) return;
  if (planned.length === 1 || !capabilitiesOf(tx.db).roundTrips) {
    for (const e of planned) await recordEvent(tx, e.actor, e.type, e.data, e.at);
    return;
  }
  const rows: EventRow[] = planned.map((e) => ({
    id: newId('evt', e.at),
    account_id: e.actor.accountId,
    mode: e.actor.mode,
    type: e.type,
    data: JSON.stringify(e.data),
    created_at: e.at,
    endpoint_id: null,
  }));
  const endpoints = await insertEventsAndListEndpoints(tx.db, rows);
  const deliveries = rows.flatMap((event, i) =>
    subscribed(
      endpoints.filter((e) => e.account_id === event.account_id && e.mode === event.mode),
      planned[i]!.type,
    ).map((e) => pendingDelivery(event.id, e.id, planned[i]!.at)),
  );
  if (deliveries.length > 0) {
    await insertDeliveries(tx.db, deliveries);
    tx.publish('webhook.pending', null);
  }
}

/** The endpoints of `endpoints` subscribed to `type`. */
function subscribed<E extends Pick<WebhookEndpointRow, 'events_json'>>(
  endpoints: E[],
  type: EventType,
): E[] {
  return endpoints.filter((e) => (JSON.parse(e.events_json) as string[]).includes(type));
}

/**
 * Creates one pending delivery per endpoint of `endpoints` (the enabled ones of the
 * event's account and mode) subscribed to `type`, in the event's own transaction: an
 * event that commits always has its deliveries, even if the process dies the next moment.
 */
async function fanOut(
  tx: WriteTx,
  endpoints: Pick<WebhookEndpointRow, 'id' | 'events_json'>[],
  eventId: string,
  type: EventType,
  now: number,
) {
  const rows: WebhookDeliveryRow[] = subscribed(endpoints, type).map((e) =>
    pendingDelivery(eventId, e.id, now),
  );
  if (rows.length === 0) return;
  await insertDeliveries(tx.db, rows);
  tx.publish('webhook.pending', null);
}

/** A delivery of an event to an endpoint, due at once. */
export function pendingDelivery(
  eventId: string,
  endpointId: string,
  now: number,
): WebhookDeliveryRow {
  return {
    id: newId('whd', now),
    event_id: eventId,
    endpoint_id: endpointId,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: 0,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}
