import type { Kysely, Selectable } from 'kysely';
import type { Capabilities } from '../capabilities.ts';
import type { DB, WebhookAttemptsTable, WebhookDeliveriesTable } from '../schema.ts';

export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

/** Creates deliveries; an (event, endpoint) pair that already has one is left as it is. */
export async function insertDeliveries(db: Kysely<DB>, rows: WebhookDeliveryRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
    .execute();
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`, skipping endpoints that
 * already have as many attempts in flight as they may (so a slow endpoint
 * never takes the slots of a healthy one).
 */
export function claimDeliveries(
  db: Kysely<DB>,
  capabilities: Capabilities,
  now: number,
  limit: number,
  leaseMs: number,
  busyEndpoints: string[],
): Promise<WebhookDeliveryRow[]> {
  return db
    .updateTable('webhook_deliveries')
    .set({ locked_until: now + leaseMs })
    .where('id', 'in', (eb) => {
      let q = eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where('locked_until', '<=', now);
      if (busyEndpoints.length > 0) q = q.where('endpoint_id', 'not in', busyEndpoints);
      q = q.orderBy('next_attempt_at').limit(limit);
      if (capabilities.skipLocked) q = q.forUpdate().skipLocked();
      return q;
    })
    .returningAll()
    .execute();
}

/** One delivery. */
export function findDelivery(db: Kysely<DB>, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a delivery's columns. */
export async function updateDelivery(
  db: Kysely<DB>,
  id: string,
  values: Partial<Omit<WebhookDeliveryRow, 'id' | 'event_id' | 'endpoint_id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(values).where('id', '=', id).execute();
}

/** Records one attempt. */
export async function insertAttempt(db: Kysely<DB>, row: WebhookAttemptRow): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/** A page of an endpoint's deliveries, newest first, before the cursor id. */
export function listDeliveries(
  db: Kysely<DB>,
  endpointId: string,
  limit: number,
  startingAfter?: string,
): Promise<WebhookDeliveryRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (startingAfter) q = q.where('id', '<', startingAfter);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** The attempts of several deliveries, oldest first. */
export function listAttempts(db: Kysely<DB>, deliveryIds: string[]): Promise<WebhookAttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('attempted_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** The earliest time a pending delivery is due (respecting leases), or null. */
export async function nextDeliveryDue(db: Kysely<DB>): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) =>
      eb.fn
        .min(
          eb
            .case()
            .when('next_attempt_at', '>', eb.ref('locked_until'))
            .then(eb.ref('next_attempt_at'))
            .else(eb.ref('locked_until'))
            .end(),
        )
        .as('due'),
    )
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.due == null ? null : Number(row.due);
}
