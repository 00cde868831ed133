import { validationError } from '../../domain/errors.ts';
import { insertOrRearmDeliveries } from '../../store/repos/webhook-deliveries.ts';
import { pageOfRecoverableEvents, type RecoveryCursor } from '../../store/repos/events.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';
import { scoped } from '../../store/scope.ts';
import type { Actor, CommandDeps } from '../context.ts';
import { pendingDelivery } from '../record-event.ts';
import { ownedEndpoint } from './owned-endpoint.ts';

/** Events a recovery reads and delivers per round: their deliveries are one insert (11 000 values). */
const RECOVERY_PAGE = 1000;

/**
 * Recovery, as Svix offers it: every event since `since` that the endpoint
 * subscribes to is delivered again (or for the first time). Answers how many.
 */
export async function recoverWebhookEvents(
  tx: WriteTx,
  actor: Actor,
  endpointId: string,
  since: number,
  deps: CommandDeps,
): Promise<{ object: 'recovery'; count: number }> {
  const endpoint = await ownedEndpoint(tx, actor, endpointId);
  const now = deps.clock.now();
  // NaN would reach the query: PostgreSQL refuses it as a bigint (a 500), SQLite matches nothing.
  if (!Number.isFinite(since)) {
    throw validationError(
      'since',
      'since must be an ISO 8601 date and time, such as 2026-01-31T09:30:00Z.',
    );
  }
  if (since > now) throw validationError('since', 'since must be in the past.');
  const recovery = { types: JSON.parse(endpoint.events_json) as string[], since };
  let count = 0;
  let after: RecoveryCursor | null = null;
  // A page at a time, so any number of events is recovered in bounded memory and
  // statements of bounded size: one listing every id bound SQLite's 32 766 parameters.
  for (;;) {
    const page = await pageOfRecoverableEvents(
      scoped(tx.db, actor),
      recovery,
      after,
      RECOVERY_PAGE,
    );
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
  return { object: 'recovery', count };
}
