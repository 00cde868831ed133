import type { Kysely } from 'kysely';
import {
  presentWebhookDelivery,
  type WebhookDeliveryView,
} from '../presenters/webhook-delivery.ts';
import {
  listAttempts,
  listDeliveriesWithAttempts,
  type DeliveryWithAttempts,
  type WebhookDeliveryRow,
} from '../store/repos/webhook-deliveries.ts';
import type { DB } from '../store/schema.ts';
import { notFound } from '../domain/errors.ts';
import { findWebhookEndpoint } from '../store/repos/webhook-endpoints.ts';
import type { Scope } from '../store/scope.ts';

/** Deliveries with their event types and every attempt, as the delivery log shows them. */
export async function presentDeliveries(
  db: Kysely<DB>,
  deliveries: WebhookDeliveryRow[],
): Promise<WebhookDeliveryView[]> {
  const attempts = await listAttempts(
    db,
    deliveries.map((d) => d.id),
  );
  return withEventTypes(
    db,
    deliveries.map((delivery) => ({
      delivery,
      attempts: attempts.filter((a) => a.delivery_id === delivery.id),
    })),
  );
}

/** Presents deliveries with their attempts, adding each one's event type (events never change). */
async function withEventTypes(
  db: Kysely<DB>,
  entries: DeliveryWithAttempts[],
): Promise<WebhookDeliveryView[]> {
  const eventIds = [...new Set(entries.map((e) => e.delivery.event_id))];
  const events =
    eventIds.length === 0
      ? []
      : await db.selectFrom('events').select(['id', 'type']).where('id', 'in', eventIds).execute();
  const byId = new Map(events.map((e) => [e.id, e]));
  return entries.map(({ delivery, attempts }) =>
    presentWebhookDelivery(delivery, byId.get(delivery.event_id), attempts),
  );
}

/** A page of the delivery log. */
export type DeliveryLogPage = { object: 'list'; data: WebhookDeliveryView[]; hasMore: boolean };

/** One page of the delivery log of an endpoint of the scope; `not_found` for another's endpoint. */
export async function loadDeliveryLog(
  scope: Scope,
  endpointId: string,
  limit: number,
  startingAfter?: string,
): Promise<DeliveryLogPage> {
  const endpoint = await findWebhookEndpoint(scope, endpointId);
  if (!endpoint) throw notFound('webhook endpoint', endpointId);
  return deliveryLogPage(scope.db, endpoint.id, limit, startingAfter);
}

/**
 * One page of an endpoint's delivery log, newest first. Deliveries and their attempts come
 * from one statement, so the log never shows an attempt next to its delivery's status from
 * before it.
 */
export async function deliveryLogPage(
  db: Kysely<DB>,
  endpointId: string,
  limit: number,
  startingAfter?: string,
): Promise<DeliveryLogPage> {
  const page = await listDeliveriesWithAttempts(db, endpointId, limit + 1, startingAfter);
  return {
    object: 'list',
    data: await withEventTypes(db, page.slice(0, limit)),
    hasMore: page.length > limit,
  };
}
