import type { WebhookEndpointRow } from '../store/repos/webhook-endpoints.ts';
import { isoTime } from './time.ts';

/** A webhook endpoint as the API and the dashboard show it. The secret appears only when made. */
export interface WebhookEndpointView {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
}

/** Turns an endpoint row into its public shape; `secret` is added by create and rotate only. */
export function presentWebhookEndpoint(
  row: WebhookEndpointRow,
  secret?: string,
): WebhookEndpointView {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    events: JSON.parse(row.events_json) as string[],
    enabled: row.enabled === 1,
    description: row.description,
    disabledReason: row.disabled_reason,
    createdAt: isoTime(row.created_at),
    ...(secret !== undefined ? { secret } : {}),
  };
}
