import { validationError } from '../domain/errors.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { savePushSubscription } from '../store/repos/push.ts';
import type { WebhookDeps } from './context.ts';
import type { TeamActor } from './team-context.ts';

/** A browser's push subscription, as `PushSubscription.toJSON()` gives it. */
export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Records a browser's push subscription for the signed-in user. The server POSTs to its
 * endpoint, so it is checked like a webhook URL: https, and a public address.
 */
export async function addPushSubscription(
  tx: WriteTx,
  actor: TeamActor,
  input: PushSubscriptionInput,
  deps: WebhookDeps,
): Promise<{ endpoint: string }> {
  // Push services are reached over https only (RFC 8030), whatever webhooks may do.
  if (!URL.canParse(input.endpoint) || new URL(input.endpoint).protocol !== 'https:') {
    throw validationError('endpoint', 'endpoint must be an https URL.');
  }
  const verdict = await deps.checkUrl(input.endpoint);
  if (!verdict.ok) throw validationError('endpoint', `endpoint ${verdict.reason}`);
  for (const key of ['p256dh', 'auth'] as const) {
    if (!BASE64URL.test(input.keys[key])) {
      throw validationError(`keys.${key}`, `keys.${key} must be base64url.`);
    }
  }
  await savePushSubscription(tx.db, {
    endpoint: input.endpoint,
    user_id: actor.userId,
    account_id: actor.accountId,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    created_at: deps.clock.now(),
  });
  // The notifier starts listening for what to send once there is someone to send it to.
  tx.publish('push.subscribed', { accountId: actor.accountId });
  return { endpoint: input.endpoint };
}
