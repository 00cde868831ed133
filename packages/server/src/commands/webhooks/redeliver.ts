import { notFound, validationError } from '../../domain/errors.ts';
import { newId } from '../../lib/ids.ts';
import {
  findDelivery,
  insertDeliveries,
  insertOrRearmDeliveries,
  rearmDelivery,
} from '../../store/repos/webhook-deliveries.ts';
import { findWebhookEndpoint } from '../../store/repos/webhook-endpoints.ts';
import { pageOfRecoverableEvents, type RecoveryCursor } from '../../store/repos/events.ts';
import type { WriteTx } from '../../store/write-queue.ts';
import type { Actor, CommandDeps, WebhookDeps } from '../context.ts';
import { pendingDelivery } from '../record-event.ts';
import { checkEventType } from './endpoint-rules.ts';

async function requireEndpoint(tx: WriteTx, actor: Actor, endpointId: string) {
  const endpoint = await findWebhookEndpoint(tx.db, actor.accountId, actor.mode, endpointId);
  if (!endpoint) throw notFound('webhook endpoint', endpointId);
  return endpoint;
}

/**
 * Sends one delivery again now, whatever became of it: the same `evt_` id and
 * payload, a new attempt in its log. Returns the delivery id.
 */
export async function retryDelivery(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
  deliveryId: string,
  deps: CommandDeps,
): Promise<string> {
  await requireEndpoint(tx, actor, endpointId);
  const delivery = await findDelivery(tx.db, deliveryId);
  if (!delivery || delivery.endpoint_id !== endpointId) throw notFound('delivery', deliveryId);
  const now = deps.clock.now();
  // Attempts restart from zero so a manual retry gets the whole schedule again. None
  // re-armed: the retention sweep removed it since it was read (PostgreSQL).
  if (!(await rearmDelivery(tx.db, deliveryId, now))) throw notFound('delivery', deliveryId);
  tx.publish('webhook.pending', null);
  return deliveryId;
}

/** Events a recovery reads and delivers per round: their deliveries are one insert (11 000 values). */
const RECOVERY_PAGE = 1000;

/**
 * Recovery, as Svix offers it: every event since `since` that the endpoint
 * subscribes to is delivered again (or for the first time). Returns how many.
 */
export async function recoverEvents(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
  since: number,
  deps: CommandDeps,
): Promise<number> {
  const endpoint = await requireEndpoint(tx, actor, endpointId);
  const now = deps.clock.now();
  // NaN would reach the query: PostgreSQL refuses it as a bigint (a 500), SQLite matches nothing.
  if (!Number.isFinite(since)) {
    throw validationError(
      'since',
      'since must be an ISO 8601 date and time, such as 2026-01-31T09:30:00Z.',
    );
  }
  if (since > now) throw validationError('since', 'since must be in the past.');
  const scope = {
    accountId: actor.accountId,
    mode: actor.mode,
    types: JSON.parse(endpoint.events_json) as string[],
    since,
  };
  let count = 0;
  let after: RecoveryCursor | null = null;
  // A page at a time, so any number of events is recovered in bounded memory and
  // statements of bounded size: one listing every id bound SQLite's 32 766 parameters.
  for (;;) {
    const page = await pageOfRecoverableEvents(tx.db, scope, after, RECOVERY_PAGE);
    if (page.length === 0) break;
    // Existing deliveries are re-armed; events never delivered here get a new one.
    await insertOrRearmDeliveries(
      tx.db,
      page.map((e) => pendingDelivery(e.id, endpointId, now)),
      now,
    );
    count += page.length;
    if (page.length < RECOVERY_PAGE) break;
    after = page.at(-1)!;
  }
  if (count > 0) tx.publish('webhook.pending', null);
  return count;
}

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
 * to check a receiver end to end. Returns the delivery id.
 */
export async function sendTestEvent(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
  type: string,
  deps: WebhookDeps,
): Promise<string> {
  checkEventType(type, 'type');
  await requireEndpoint(tx, actor, endpointId);
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
  return delivery.id;
}
