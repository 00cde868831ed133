import { notFound } from '../../domain/errors.ts';
import {
  presentWebhookEndpoint,
  type WebhookEndpointView,
} from '../../presenters/webhook-endpoint.ts';
import {
  findWebhookEndpoint,
  updateWebhookEndpoint as writeEndpoint,
} from '../../store/repos/webhook-endpoints.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import type { Actor, CommandDeps } from '../context.ts';
import { checkDescription, checkEventTypes } from './endpoint-rules.ts';
import { scoped } from '../../store/scope.ts';

/** Changes to an endpoint; `url`, when present, must already have passed `checkEndpointUrl`. */
export interface UpdateWebhookEndpointInput {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/** Updates url, events, description or enabled; re-enabling clears the reason it was disabled. */
export async function updateWebhookEndpoint(
  tx: WriteTx,
  actor: Actor,
  id: string,
  input: UpdateWebhookEndpointInput,
  deps: CommandDeps,
): Promise<WebhookEndpointView> {
  const row = await findWebhookEndpoint(scoped(tx.db, actor), id);
  if (!row) throw notFound('webhook endpoint', id);
  checkDescription(input.description);
  const now = deps.clock.now();
  const changes: Parameters<typeof writeEndpoint>[2] = { updated_at: now };
  if (input.url !== undefined) changes.url = input.url;
  if (input.events !== undefined)
    changes.events_json = JSON.stringify(checkEventTypes(input.events));
  if (input.description !== undefined) changes.description = input.description?.trim() || null;
  if (input.enabled !== undefined) {
    changes.enabled = input.enabled ? 1 : 0;
    changes.disabled_reason = input.enabled ? null : 'disabled_by_user';
    if (input.enabled) changes.failing_since = null;
  }
  await writeEndpoint(tx, id, changes);
  return presentWebhookEndpoint({ ...row, ...changes });
}
