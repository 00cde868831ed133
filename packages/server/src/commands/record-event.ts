import { newId } from '../lib/ids.ts';
import type { WriteTx } from '../store/write-queue.ts';
import { insertEventAndListEndpoints } from '../store/repos/event-outbox.ts';
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

/** What `recordEvent` publishes on the store's `event` signal after commit. */
export interface RecordedEvent {
  id: string;
  accountId: string;
  mode: Actor['mode'];
  type: EventType;
}

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
  const recorded: RecordedEvent = { id, accountId: actor.accountId, mode: actor.mode, type };
  tx.publish('event', recorded);
  return id;
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
  const rows: WebhookDeliveryRow[] = endpoints
    .filter((e) => (JSON.parse(e.events_json) as string[]).includes(type))
    .map((e) => pendingDelivery(eventId, e.id, now));
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
