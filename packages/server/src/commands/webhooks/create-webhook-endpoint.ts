import { newId } from '../../lib/ids.ts';
import {
  presentWebhookEndpoint,
  type WebhookEndpointView,
} from '../../presenters/webhook-endpoint.ts';
import { insertWebhookEndpoint } from '../../store/repos/webhook-endpoints.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import type { Actor, WebhookDeps } from '../context.ts';
import { checkDescription, checkEventTypes } from './endpoint-rules.ts';

/** Input of `POST /v1/webhook_endpoints`; `url` must already have passed `checkEndpointUrl`. */
export interface CreateWebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | undefined;
  enabled?: boolean | undefined;
}

/**
 * Registers an endpoint with a fresh `whsec_` secret, stored sealed. The
 * secret is in the answer of this call and of a rotation, nowhere else.
 */
export async function createWebhookEndpoint(
  tx: WriteTx,
  actor: Actor,
  input: CreateWebhookEndpointInput,
  deps: WebhookDeps,
): Promise<WebhookEndpointView> {
  const events = checkEventTypes(input.events);
  checkDescription(input.description);
  const now = deps.clock.now();
  const secret = deps.newSecret();
  const row = {
    id: newId('whe', now),
    account_id: actor.accountId,
    mode: actor.mode,
    url: input.url,
    description: input.description?.trim() || null,
    events_json: JSON.stringify(events),
    enabled: input.enabled === false ? 0 : 1,
    disabled_reason: null,
    secret_sealed: deps.seal(secret),
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    failing_since: null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  await insertWebhookEndpoint(tx.db, row);
  return presentWebhookEndpoint(row, secret);
}
