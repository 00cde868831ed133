import { sql, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';
import { compiled, compiledInsert, compiledSql, rowFrom, valuesIn } from '../engine/compiled.ts';
import { withFixedIndexPlans } from '../engine/index-plans.ts';
import type { DB, WebhookAttemptsTable, WebhookDeliveriesTable } from '../schema.ts';
import { comparableCursor, namesNothing } from '../text-limits.ts';

export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

/**
 * Rows of one insert at most: each binds 11 values, and a statement may bind at most
 * 65 535 on PostgreSQL and 32 766 on SQLite. A batch of 500 receipts' events, each to a
 * dozen endpoints, is 6 000 deliveries (recordEvents).
 */
const DELIVERIES_PER_INSERT = 2000;

/** Creates deliveries; an (event, endpoint) pair that already has one is left as it is. */
export async function insertDeliveries(db: Kysely<DB>, rows: WebhookDeliveryRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += DELIVERIES_PER_INSERT) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(at, at + DELIVERIES_PER_INSERT))
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
      .execute();
  }
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`, skipping `busyEndpoints`: those
 * with enough claimed and waiting in the worker already (so a slow endpoint never
 * takes the claims of a healthy one).
 */
export async function claimDeliveries(
  db: Kysely<DB>,
  now: number,
  limit: number,
  leaseMs: number,
  busyEndpoints: string[],
): Promise<WebhookDeliveryRow[]> {
  if (capabilitiesOf(db).roundTrips) {
    // Settled deliveries' entries are marked dead as the claim passes them (see
    // withFixedIndexPlans); the busy endpoints are one array, so the claim is one shape.
    return withFixedIndexPlans(db, () =>
      claimOnPostgres(db, now + leaseMs, now, busyEndpoints, limit),
    );
  }
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
      // SQLite has one writer: no other claim can hold a row this one finds.
      return q.orderBy('next_attempt_at').limit(limit);
    })
    .returningAll()
    .execute();
}

/**
 * A claim on PostgreSQL, prepared and planned once (see withFixedIndexPlans): the due
 * index walked in order, each row taken by its key, rows another claim holds skipped.
 */
const claimOnPostgres = compiledSql(
  (lockedUntil: unknown, now: unknown, busy: unknown, limit: unknown) =>
    sql<WebhookDeliveryRow>`update "webhook_deliveries" set "locked_until" = ${lockedUntil}
where "id" in (
  select "id" from "webhook_deliveries"
  where "status" = 'pending' and "next_attempt_at" <= ${now} and "locked_until" <= ${now}
    and "endpoint_id" <> all(${busy}::text[])
  order by "next_attempt_at" limit ${limit} for update skip locked
)
returning *`,
);

/** One delivery. */
export function findDelivery(db: Kysely<DB>, id: string): Promise<WebhookDeliveryRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What sends a delivery again from `now`: pending, the whole schedule again, any lease given up. */
function rearmed(now: number) {
  return {
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: 0,
    updated_at: now,
  } as const;
}

/**
 * Sends delivery `id` again from `now`: its attempts counted from zero, any lease given up.
 * False when it is gone (the retention sweep removed it since it was read).
 */
export async function rearmDelivery(db: Kysely<DB>, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set(rearmed(now))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Creates `rows` (pending deliveries made at `now`), and sends again from `now`
 * those whose (event, endpoint) pair already has one, as rearmDelivery does: one
 * statement, each row found by the pair's unique index. (An update of an
 * endpoint's deliveries `where event_id in (…)` was planned on PostgreSQL as a walk
 * of all the endpoint's deliveries, once per page of a recovery.)
 */
export async function insertOrRearmDeliveries(
  db: Kysely<DB>,
  rows: WebhookDeliveryRow[],
  now: number,
): Promise<void> {
  for (let at = 0; at < rows.length; at += DELIVERIES_PER_INSERT) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(at, at + DELIVERIES_PER_INSERT))
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doUpdateSet(rearmed(now)))
      .execute();
  }
}

/** Every column of `webhook_attempts`, in the order the compiled statements list them. */
const ATTEMPT_COLUMNS = {
  id: true,
  delivery_id: true,
  endpoint_id: true,
  attempted_at: true,
  status_code: true,
  error: true,
  duration_ms: true,
  response_excerpt: true,
} as const satisfies Record<keyof WebhookAttemptsTable, true>;
const attemptColumns = Object.keys(ATTEMPT_COLUMNS) as (keyof WebhookAttemptRow)[];

/** What settling an attempt changes in its delivery. */
export type Settlement = Pick<
  WebhookDeliveryRow,
  'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'updated_at'
>;
const settlementColumns = [
  'status',
  'attempts',
  'next_attempt_at',
  'last_status_code',
  'last_error',
  'updated_at',
] as const satisfies readonly (keyof Settlement)[];

/** The delivery still holding the lease `lease` gets `settlement`, and its lease back. */
function settleWhere(db: QueryCreator<DB>, values: unknown[], at: number) {
  const settlement = rowFrom(settlementColumns, values, at) as Settlement;
  return db
    .updateTable('webhook_deliveries')
    .set({ ...settlement, locked_until: 0 })
    .where('id', '=', values[at + settlementColumns.length] as string)
    .where('locked_until', '=', values[at + settlementColumns.length + 1] as number);
}

// Compiled once: every attempt is logged and settled with these (see store/engine/compiled.ts).
const insertAttemptRow = compiledInsert('webhook_attempts', ATTEMPT_COLUMNS);
const settleDeliveryRow = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  settleWhere(db, values, 0),
);
/**
 * Both in one statement on PostgreSQL, where each is a round trip of the webhook
 * lane: the attempt is inserted by a data-modifying CTE of the settling UPDATE (it
 * needs none of the other's rows).
 */
const logAndSettleInOneStatement = compiled((db: Kysely<DB>, ...values: unknown[]) =>
  settleWhere(
    db.with('attempt', (q) =>
      q.insertInto('webhook_attempts').values(rowFrom(attemptColumns, values, 0)),
    ),
    values,
    attemptColumns.length,
  ),
);

/**
 * Ends an attempt: the delivery's status, count and next time, its lease given
 * back. Only while the delivery still holds the lease of that attempt's claim
 * (`lease`, its `locked_until`): a delivery re-armed meanwhile (a retry or a
 * recovery, here or in another instance) or claimed again after its lease
 * lapsed belongs to that newer claim, and this attempt's outcome must not end it.
 */
export async function settleDelivery(
  db: Kysely<DB>,
  id: string,
  lease: number,
  settlement: Settlement,
): Promise<void> {
  await settleDeliveryRow(db, ...valuesIn(settlement, settlementColumns), id, lease);
}

/** An attempt to log, and the settlement of its delivery under the lease of its claim. */
export interface AttemptSettlement {
  attempt: WebhookAttemptRow;
  /** The `locked_until` of the attempt's claim (see settleDelivery). */
  lease: number;
  settlement: Settlement;
}

/**
 * Many of both in one statement on PostgreSQL: each column a parameter holding an
 * array, one element per attempt, turned back into rows by `unnest`. The worker
 * settles the attempts that ended within a few milliseconds together (up to 64),
 * and the webhook lane runs one statement per round trip: settled one by one, a
 * batch of them held the lane for 64 round trips, and the claims that keep the
 * endpoints busy waited behind it. Prepared, and planned once (see
 * withFixedIndexPlans): each delivery is found by its id, whatever the length of the lists.
 */
const logAndSettleManyInOneStatement = compiledSql((...columns: unknown[]) => {
  const [id, deliveryId, endpointId, attemptedAt, statusCode, error, durationMs, excerpt] = columns;
  const [status, attempts, nextAttemptAt, lastStatusCode, lastError, updatedAt, key, lease] =
    columns.slice(attemptColumns.length);
  return sql`with "attempt" as (
  insert into "webhook_attempts" ("id", "delivery_id", "endpoint_id", "attempted_at", "status_code", "error", "duration_ms", "response_excerpt")
  select * from unnest(${id}::text[], ${deliveryId}::text[], ${endpointId}::text[], ${attemptedAt}::bigint[], ${statusCode}::integer[], ${error}::text[], ${durationMs}::integer[], ${excerpt}::text[])
)
update "webhook_deliveries" as "d"
set "status" = "s"."status", "attempts" = "s"."attempts", "next_attempt_at" = "s"."next_attempt_at",
  "last_status_code" = "s"."last_status_code", "last_error" = "s"."last_error",
  "updated_at" = "s"."updated_at", "locked_until" = 0
from unnest(${status}::text[], ${attempts}::integer[], ${nextAttemptAt}::bigint[], ${lastStatusCode}::integer[], ${lastError}::text[], ${updatedAt}::bigint[], ${key}::text[], ${lease}::bigint[])
  as "s"("status", "attempts", "next_attempt_at", "last_status_code", "last_error", "updated_at", "id", "lease")
where "d"."id" = "s"."id" and "d"."locked_until" = "s"."lease"`;
});

/**
 * Records attempts and settles their deliveries (see settleDelivery): each attempt
 * is logged even where its delivery no longer holds the lease. One statement on
 * PostgreSQL, however many; two per attempt on SQLite, where a statement is a call
 * into the library, not a round trip.
 */
export async function logAttemptsAndSettle(
  db: Kysely<DB>,
  items: readonly AttemptSettlement[],
): Promise<void> {
  if (capabilitiesOf(db).roundTrips) {
    if (items.length === 1) {
      const { attempt, lease, settlement } = items[0]!;
      await logAndSettleInOneStatement(
        db,
        ...valuesIn(attempt, attemptColumns),
        ...valuesIn(settlement, settlementColumns),
        attempt.delivery_id,
        lease,
      );
    } else if (items.length > 1) {
      await withFixedIndexPlans(db, () =>
        logAndSettleManyInOneStatement(
          db,
          ...attemptColumns.map((column) => items.map((item) => item.attempt[column])),
          ...settlementColumns.map((column) => items.map((item) => item.settlement[column])),
          items.map((item) => item.attempt.delivery_id),
          items.map((item) => item.lease),
        ),
      );
    }
    return;
  }
  for (const { attempt, lease, settlement } of items) {
    await insertAttemptRow(db, attempt);
    await settleDelivery(db, attempt.delivery_id, lease, settlement);
  }
}

/** A delivery and its attempts, oldest first. */
export interface DeliveryWithAttempts {
  delivery: WebhookDeliveryRow;
  attempts: WebhookAttemptRow[];
}

/**
 * A page of an endpoint's deliveries, newest first, each with its attempts, read
 * in one statement: an attempt and its delivery's new status commit together, and
 * two statements could see the one without the other.
 */
export async function listDeliveriesWithAttempts(
  db: Kysely<DB>,
  endpointId: string,
  limit: number,
  startingAfter?: string,
): Promise<DeliveryWithAttempts[]> {
  const rows = await db
    .selectFrom((eb) => {
      let page = eb
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId);
      if (startingAfter) page = page.where('id', '<', comparableCursor(startingAfter));
      return page.orderBy('id', 'desc').limit(limit).as('d');
    })
    .leftJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
    .selectAll('d')
    .select([
      'a.id as attempt_id',
      'a.endpoint_id as attempt_endpoint_id',
      'a.attempted_at as attempt_attempted_at',
      'a.status_code as attempt_status_code',
      'a.error as attempt_error',
      'a.duration_ms as attempt_duration_ms',
      'a.response_excerpt as attempt_response_excerpt',
    ])
    .orderBy('d.id', 'desc')
    .orderBy('a.attempted_at', 'asc')
    .orderBy('a.id', 'asc')
    .execute();
  const page: DeliveryWithAttempts[] = [];
  for (const row of rows) {
    const {
      attempt_id,
      attempt_endpoint_id,
      attempt_attempted_at,
      attempt_status_code,
      attempt_error,
      attempt_duration_ms,
      attempt_response_excerpt,
      ...delivery
    } = row;
    if (page.at(-1)?.delivery.id !== delivery.id) page.push({ delivery, attempts: [] });
    if (attempt_id === null) continue;
    page.at(-1)!.attempts.push({
      id: attempt_id,
      delivery_id: delivery.id,
      endpoint_id: attempt_endpoint_id!,
      attempted_at: attempt_attempted_at!,
      status_code: attempt_status_code,
      error: attempt_error,
      duration_ms: attempt_duration_ms!,
      response_excerpt: attempt_response_excerpt,
    });
  }
  return page;
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
