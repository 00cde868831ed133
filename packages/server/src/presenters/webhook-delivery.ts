import type { EventRow } from '../store/repos/events.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../store/repos/webhook-deliveries.ts';
import { isoTime } from './time.ts';

/** One HTTP attempt in the delivery log. */
export interface WebhookAttemptView {
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBodyExcerpt: string | null;
}

/** A delivery of one event to one endpoint, with every attempt. */
export interface WebhookDeliveryView {
  id: string;
  object: 'webhook_delivery';
  endpointId: string;
  eventId: string;
  eventType: string;
  status: WebhookDeliveryRow['status'];
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  createdAt: string;
  attempts: WebhookAttemptView[];
}

/** Turns a delivery, its event and its attempts into the delivery log's shape. */
export function presentWebhookDelivery(
  row: WebhookDeliveryRow,
  event: Pick<EventRow, 'type'> | undefined,
  attempts: WebhookAttemptRow[],
): WebhookDeliveryView {
  return {
    id: row.id,
    object: 'webhook_delivery',
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: event?.type ?? 'unknown',
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.status === 'pending' ? isoTime(row.next_attempt_at) : null,
    lastStatusCode: row.last_status_code,
    createdAt: isoTime(row.created_at),
    attempts: attempts.map((a) => ({
      attemptedAt: isoTime(a.attempted_at),
      statusCode: a.status_code,
      error: a.error,
      durationMs: a.duration_ms,
      responseBodyExcerpt: a.response_excerpt,
    })),
  };
}
