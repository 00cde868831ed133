import type { Kysely, Selectable } from 'kysely';
import { compiled } from '../engine/compiled.ts';
import type { DB, Mode, WebhookEndpointsTable } from '../schema.ts';
import type { WriteTx } from '../engine/write-queue.ts';
import { comparableCursor, namesNothing } from '../text-limits.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

/** Inserts an endpoint. */
export async function insertWebhookEndpoint(
  db: Kysely<DB>,
  row: WebhookEndpointRow,
): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** One live (not deleted) endpoint within its account and mode. */
export function findWebhookEndpoint(
  scope: Scope,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return scope.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where(ownedBy(scope))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

// Compiled once: the webhook worker reads one per attempt.
const selectEndpointById = compiled((db: Kysely<DB>, id: string) =>
  db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id),
);

/** One endpoint by id alone, deleted or not (the delivery worker). */
export async function findWebhookEndpointById(
  db: Kysely<DB>,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return (await selectEndpointById(db, id))[0];
}

/** A page of an account's endpoints, oldest first, after the cursor id. */
export function listWebhookEndpoints(
  scope: Scope,
  limit: number,
  startingAfter?: string,
): Promise<WebhookEndpointRow[]> {
  let q = scope.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where(ownedBy(scope))
    .where('deleted_at', 'is', null);
  if (startingAfter) q = q.where('id', '>', comparableCursor(startingAfter));
  return q.orderBy('id', 'asc').limit(limit).execute();
}

// Compiled once: every event's fan-out runs it (see store/engine/compiled.ts).
const selectEnabledEndpoints = compiled((db: Kysely<DB>, accountId: string, mode: Mode) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events_json'])
    .where(ownedBy({ accountId, mode }))
    .where('enabled', '=', 1)
    .where('deleted_at', 'is', null),
);

/** Enabled endpoints of an account and mode: the candidates of an event's fan-out. */
export function listEnabledWebhookEndpoints(
  scope: Scope,
): Promise<Pick<WebhookEndpointRow, 'id' | 'events_json'>[]> {
  return selectEnabledEndpoints(scope.db, scope.accountId, scope.mode);
}

/**
 * The signal every change to an endpoint row publishes once committed, with `{id}`:
 * what keeps copies of endpoint rows (the delivery worker's) from going stale.
 */
export const WEBHOOK_ENDPOINT_CHANGED = 'webhook_endpoint.changed';

/** Changes an endpoint's columns, and says so once committed (WEBHOOK_ENDPOINT_CHANGED). */
export async function updateWebhookEndpoint(
  tx: WriteTx,
  id: string,
  values: Partial<Omit<WebhookEndpointRow, 'id' | 'account_id' | 'mode' | 'created_at'>>,
): Promise<void> {
  await tx.db.updateTable('webhook_endpoints').set(values).where('id', '=', id).execute();
  tx.publish(WEBHOOK_ENDPOINT_CHANGED, { id });
}
