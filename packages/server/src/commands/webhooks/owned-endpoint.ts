import { notFound } from '../../domain/errors.ts';
import {
  findWebhookEndpoint,
  type WebhookEndpointRow,
} from '../../store/repos/webhook-endpoints.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import { scoped } from '../../store/scope.ts';
import type { Actor } from '../context.ts';

/** The actor's endpoint `endpointId`; `not_found` for another's or a deleted one. */
export async function ownedEndpoint(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(scoped(tx.db, actor), endpointId);
  if (!endpoint) throw notFound('webhook endpoint', endpointId);
  return endpoint;
}
