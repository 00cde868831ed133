import type { Kysely } from 'kysely';
import {
  presentWebhookDelivery,
  type WebhookDeliveryView,
} from '../../presenters/webhook-delivery.ts';
import {
  listAttempts,
  listDeliveries,
  type WebhookDeliveryRow,
} from '../../store/repos/webhook-deliveries.ts';
import type { DB } from '../../store/schema.ts';

/** Deliveries with their event types and every attempt, as the delivery log shows them. */
export async function presentDeliveries(
  db: Kysely<DB>,
  deliveries: WebhookDeliveryRow[],
): Promise<WebhookDeliveryView[]> {
  const attempts = await listAttempts(
    db,
    deliveries.map((d) => d.id),
  );
  const eventIds = [...new Set(deliveries.map((d) => d.event_id))];
  const events =
    eventIds.length === 0
      ? []
      : await db.selectFrom('events').select(['id', 'type']).where('id', 'in', eventIds).execute();
  const byId = new Map(events.map((e) => [e.id, e]));
  return deliveries.map((d) =>
    presentWebhookDelivery(
      d,
      byId.get(d.event_id),
      attempts.filter((a) => a.delivery_id === d.id),
    ),
  );
}

/** One page of an endpoint's delivery log, newest first. */
export async function loadDeliveryLog(
  db: Kysely<DB>,
  endpointId: string,
  limit: number,
  startingAfter?: string,
): Promise<{ object: 'list'; data: WebhookDeliveryView[]; hasMore: boolean }> {
  const rows = await listDeliveries(db, endpointId, limit + 1, startingAfter);
  return {
    object: 'list',
    data: await presentDeliveries(db, rows.slice(0, limit)),
    hasMore: rows.length > limit,
  };
}
