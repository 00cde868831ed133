import { newId } from '../../lib/ids.ts';
import type { WebhookDeliveryView } from '../../presenters/webhook-delivery.ts';
import { insertDeliveries } from '../../store/repos/webhook-deliveries.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import type { Actor, WebhookDeps } from '../context.ts';
import { pendingDelivery } from '../record-event.ts';
import { checkEventType } from './endpoint-rules.ts';
import { ownedEndpoint } from './owned-endpoint.ts';
import { presentDelivery } from './present-delivery.ts';

/** Sample `data` for a test event of each type, shaped like the real thing. */
function sampleData(type: string, now: string): object {
  if (type.startsWith('call.')) {
    return {
      id: 'call_test',
      object: 'call',
      from: '+14155550100',
      to: '+14155550101',
      direction: 'inbound',
      status: type === 'call.missed' ? 'missed' : 'completed',
      startedAt: now,
      duration: type === 'call.missed' ? 0 : 42,
    };
  }
  if (type === 'contact.created') {
    return {
      id: 'ct_test',
      object: 'contact',
      name: 'Test Contact',
      phone: '+14155550100',
      email: null,
      company: null,
      createdAt: now,
    };
  }
  const inbound = type === 'message.received';
  return {
    id: 'msg_test',
    object: 'message',
    from: inbound ? '+14155550100' : '+14155550101',
    to: inbound ? '+14155550101' : '+14155550100',
    body: 'This is a test event.',
    direction: inbound ? 'inbound' : 'outbound',
    status: type === 'message.failed' ? 'failed' : 'delivered',
    segments: 1,
    conversationId: 'cv_test',
    media: [],
    senderName: null,
    failureReason: type === 'message.failed' ? 'carrier_rejected' : null,
    createdAt: now,
  };
}

/**
 * A signed test event of the chosen type (sample data) for this endpoint only,
 * to check a receiver end to end. Returns the delivery as its log shows it.
 */
export async function sendWebhookTestEvent(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
  type: string,
  deps: WebhookDeps,
): Promise<WebhookDeliveryView> {
  checkEventType(type, 'type');
  await ownedEndpoint(tx, actor, endpointId);
  const now = deps.clock.now();
  const eventId = newId('evt', now);
  await tx.db
    .insertInto('events')
    .values({
      id: eventId,
      account_id: actor.accountId,
      mode: actor.mode,
      type,
      data: JSON.stringify(sampleData(type, new Date(now).toISOString())),
      created_at: now,
      endpoint_id: endpointId,
    })
    .execute();
  const delivery = pendingDelivery(eventId, endpointId, now);
  await insertDeliveries(tx.db, [delivery]);
  tx.publish('webhook.pending', null);
  return presentDelivery(tx, delivery.id);
}
