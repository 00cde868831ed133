import { notFound } from '../../domain/errors.ts';
import type { WebhookDeliveryView } from '../../presenters/webhook-delivery.ts';
import { findDelivery, rearmDelivery } from '../../store/repos/webhook-deliveries.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import type { Actor, CommandDeps } from '../context.ts';
import { ownedEndpoint } from './owned-endpoint.ts';
import { presentDelivery } from './present-delivery.ts';

/**
 * Sends one delivery again now, whatever became of it: the same `evt_` id and
 * payload, a new attempt in its log. Returns the delivery as its log shows it.
 */
export async function retryWebhookDelivery(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
  deliveryId: string,
  deps: CommandDeps,
): Promise<WebhookDeliveryView> {
  await ownedEndpoint(tx, actor, endpointId);
  const delivery = await findDelivery(tx.db, deliveryId);
  if (!delivery || delivery.endpoint_id !== endpointId) throw notFound('delivery', deliveryId);
  const now = deps.clock.now();
  // Attempts restart from zero so a manual retry gets the whole schedule again. None
  // re-armed: the retention sweep removed it since it was read (PostgreSQL).
  if (!(await rearmDelivery(tx.db, deliveryId, now))) throw notFound('delivery', deliveryId);
  tx.publish('webhook.pending', null);
  return presentDelivery(tx, deliveryId);
}
