import { notFound } from '../../domain/errors.ts';
import { findWebhookEndpoint, updateWebhookEndpoint } from '../../store/repos/webhook-endpoints.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import type { Actor, CommandDeps } from '../context.ts';
import { scoped } from '../../store/scope.ts';

/**
 * Deletes an endpoint: it gets no further deliveries. The row stays (marked
 * deleted) so its delivery log still explains what happened before.
 */
export async function deleteWebhookEndpoint(
  tx: WriteTx,
  actor: Actor,
  id: string,
  deps: CommandDeps,
): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  const row = await findWebhookEndpoint(scoped(tx.db, actor), id);
  if (!row) throw notFound('webhook endpoint', id);
  const now = deps.clock.now();
  await updateWebhookEndpoint(tx, id, { deleted_at: now, enabled: 0, updated_at: now });
  return { id, object: 'webhook_endpoint', deleted: true };
}
