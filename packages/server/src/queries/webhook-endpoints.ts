import { notFound } from '../domain/errors.ts';
import {
  presentWebhookEndpoint,
  type WebhookEndpointView,
} from '../presenters/webhook-endpoint.ts';
import { findWebhookEndpoint, listWebhookEndpoints } from '../store/repos/webhook-endpoints.ts';
import type { Scope } from '../store/scope.ts';

/** One endpoint of the scope (never its secret); `not_found` for another's. */
export async function getWebhookEndpoint(scope: Scope, id: string): Promise<WebhookEndpointView> {
  const row = await findWebhookEndpoint(scope, id);
  if (!row) throw notFound('webhook endpoint', id);
  return presentWebhookEndpoint(row);
}

/** A page of the scope's endpoints, oldest first, after the cursor id. */
export async function listWebhookEndpointPage(
  scope: Scope,
  limit: number,
  startingAfter?: string,
): Promise<{ object: 'list'; data: WebhookEndpointView[]; hasMore: boolean }> {
  const rows = await listWebhookEndpoints(scope, limit + 1, startingAfter);
  return {
    object: 'list',
    data: rows.slice(0, limit).map((r) => presentWebhookEndpoint(r)),
    hasMore: rows.length > limit,
  };
}
