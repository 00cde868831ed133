import { notFound } from '../../domain/errors.ts';
import {
  presentWebhookEndpoint,
  type WebhookEndpointView,
} from '../../presenters/webhook-endpoint.ts';
import { findWebhookEndpoint, updateWebhookEndpoint } from '../../store/repos/webhook-endpoints.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import type { Actor, WebhookDeps } from '../context.ts';
import { scoped } from '../../store/scope.ts';

/** How long the replaced secret keeps signing alongside the new one. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Replaces an endpoint's secret. For 24 hours every delivery carries a
 * signature with each secret (two `v1=`), so receivers can switch without
 * dropping a delivery, as Stripe's rolling secrets do.
 */
export async function rotateWebhookSecret(
  tx: WriteTx,
  actor: Actor,
  id: string,
  deps: WebhookDeps,
): Promise<WebhookEndpointView> {
  const row = await findWebhookEndpoint(scoped(tx.db, actor), id);
  if (!row) throw notFound('webhook endpoint', id);
  const now = deps.clock.now();
  const secret = deps.newSecret();
  const changes = {
    secret_sealed: deps.seal(secret),
    previous_secret_sealed: row.secret_sealed,
    previous_secret_expires_at: now + SECRET_ROTATION_OVERLAP_MS,
    updated_at: now,
  };
  await updateWebhookEndpoint(tx, id, changes);
  return presentWebhookEndpoint({ ...row, ...changes }, secret);
}
