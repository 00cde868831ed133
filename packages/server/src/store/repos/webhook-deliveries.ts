import { sql, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import { engineOf, type Capabilities } from '../capabilities.ts';
import { compiledChanges, compiledInsert, compiledSql, rowFrom, valuesIn } from '../compiled.ts';
import { withIndexedPlans, withIndexWalks } from '../index-plans.ts';
import type { DB, WebhookAttemptsTable, WebhookDeliveriesTable } from '../schema.ts';

export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

/**
 * Rows of one insert at most: each binds 11 values, and a statement may bind at most
 * 65 535 on PostgreSQL and 32 766 on SQLite. A batch of 500 receipts' events, each to a
 * dozen endpoints, is 6 000 deliveries (recordEvents).
 */
const DELIVERIES_PER_INSERT = 2000;

/**
 * Creates deliveries; an (event, endpoint) pair that already has one is left as it is.
 * Each one created pending takes its place in the due set (`webhook_due`): on
 * PostgreSQL in the same statement, from the rows the insert returns.
 */
export async function insertDeliveries(db: Kysely<DB>, rows: WebhookDeliveryRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += DELIVERIES_PER_INSERT) {
    const insert = db
      .insertInto('webhook_deliveries')
      .values(rows.slice(at, at + DELIVERIES_PER_INSERT))
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
      .returning(['id', 'endpoint_id', 'next_attempt_at', 'status']);
    if (engineOf(db) === 'postgres') {
      await db
        .with('inserted', () => insert)
        .insertInto('webhook_due')
        .columns(['delivery_id', 'endpoint_id', 'next_attempt_at'])
        .expression((eb) =>
          eb
            .selectFrom('inserted')
            .select(['id', 'endpoint_id', 'next_attempt_at'])
            .where('status', '=', 'pending'),
        )
        .execute();
      continue;
    }
    const due = (await insert.execute()).filter((row) => row.status === 'pending');
    for (let from = 0; from < due.length; from += DUE_PER_INSERT) {
      await db
        .insertInto('webhook_due')
        .values(
          due.slice(from, from + DUE_PER_INSERT).map((row) => ({
            delivery_id: row.id,
            endpoint_id: row.endpoint_id,
            next_attempt_at: row.next_attempt_at,
          })),
        )
        .execute();
    }
  }
}

/** Due rows of one insert at most on SQLite: three values each (see DELIVERIES_PER_INSERT). */
const DUE_PER_INSERT = 2000;

/**
 * Deliveries sent again from `now`: pending, their attempts counted from zero, and back
 * in the due set. `where` names one delivery, or an endpoint's deliveries of some events.
 */
export async function rearmDeliveries(
  db: Kysely<DB>,
  where: { id: string } | { endpointId: string; eventIds: string[] },
  now: number,
): Promise<void> {
  const byId = 'id' in where;
  let update = db.updateTable('webhook_deliveries').set({
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: 0,
    updated_at: now,
  });
  let rearmed = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'next_attempt_at']);
  if (byId) {
    update = update.where('id', '=', where.id);
    rearmed = rearmed.where('id', '=', where.id);
  } else {
    if (where.eventIds.length === 0) return;
    update = update
      .where('endpoint_id', '=', where.endpointId)
      .where('event_id', 'in', where.eventIds);
    rearmed = rearmed
      .where('endpoint_id', '=', where.endpointId)
      .where('event_id', 'in', where.eventIds);
  }
  await update.execute();
  await db
    .insertInto('webhook_due')
    .columns(['delivery_id', 'endpoint_id', 'next_attempt_at'])
    .expression(rearmed)
    .onConflict((oc) => oc.column('delivery_id').doUpdateSet({ next_attempt_at: now }))
    .execute();
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`, skipping `busyEndpoints`: those
 * with enough claimed and waiting in the worker already (so a slow endpoint never
 * takes the claims of a healthy one).
 */
export async function claimDeliveries(
  db: Kysely<DB>,
  capabilities: Capabilities,
  now: number,
  limit: number,
  leaseMs: number,
  busyEndpoints: string[],
): Promise<WebhookDeliveryRow[]> {
  // Walked in order, each due row joined to its delivery by key (see withIndexWalks). A
  // due row's delivery is pending: asking that again made PostgreSQL, without statistics,
  // expect almost none to be, and walk the deliveries instead of the due set.
  return withIndexWalks(db, () =>
    db
      .updateTable('webhook_deliveries')
      .set({ locked_until: now + leaseMs })
      .where('id', 'in', (eb) => {
        let q = eb
          .selectFrom('webhook_due as q')
          .innerJoin('webhook_deliveries as d', 'd.id', 'q.delivery_id')
          .select('d.id')
          .where('q.next_attempt_at', '<=', now)
          .where('d.locked_until', '<=', now);
        if (busyEndpoints.length > 0) q = q.where('q.endpoint_id', 'not in', busyEndpoints);
        q = q.orderBy('q.next_attempt_at').limit(limit);
        if (capabilities.skipLocked) q = q.forUpdate(['d']).skipLocked();
        return q;
      })
      .returningAll()
      .execute(),
  );
}

/** One delivery. */
export function findDelivery(db: Kysely<DB>, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
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

// Compiled once: every attempt is logged and settled with these (see store/compiled.ts).
const insertAttemptRow = compiledInsert('webhook_attempts', ATTEMPT_COLUMNS);
const settleDeliveryRow = compiledChanges((db: Kysely<DB>, ...values: unknown[]) =>
  settleWhere(db, values, 0),
);
const moveDue = compiledChanges((db: Kysely<DB>, nextAttemptAt: number, id: string) =>
  db
    .updateTable('webhook_due')
    .set({ next_attempt_at: nextAttemptAt })
    .where('delivery_id', '=', id),
);
const deleteDue = compiledChanges((db: Kysely<DB>, id: string) =>
  db.deleteFrom('webhook_due').where('delivery_id', '=', id),
);

/**
 * The due set after a settlement that applied: a delivery still pending (a retry) moves
 * to its next time, and one that ended leaves it.
 */
async function keepDue(db: Kysely<DB>, id: string, settlement: Settlement): Promise<void> {
  if (settlement.status === 'pending') await moveDue(db, settlement.next_attempt_at, id);
  else await deleteDue(db, id);
}

/**
 * The part of a statement settling many deliveries on PostgreSQL that follows their
 * update (a CTE named "settled", returning the rows it changed): a retry's due row
 * moves to its next time, and an ended delivery's is deleted. Only where the update
 * applied: a delivery that no longer held the lease keeps its place as its newer claim
 * or re-arming left it. The due rows are found by key (`= any` of the ids, under
 * withIndexedPlans).
 */
const KEEP_DUE = sql`,
"moved" as (
  update "webhook_due" as "q" set "next_attempt_at" = "settled"."next_attempt_at"
  from "settled"
  where "q"."delivery_id" = any(array(select "id" from "settled" where "status" = 'pending'))
    and "settled"."id" = "q"."delivery_id"
)
delete from "webhook_due"
where "delivery_id" = any(array(select "id" from "settled" where "status" <> 'pending'))`;

/**
 * The attempt's log, its delivery's settlement and the due set's change in one
 * statement on PostgreSQL, where each is a round trip of the webhook lane: the
 * attempt is inserted by a data-modifying CTE of the settling UPDATE (it needs none of
 * the other's rows), and the due row, found by its key, follows the update: moved for a
 * retry, deleted once the delivery has ended, left as it is where the lease was lost.
 */
const logAndSettleInOneStatement = compiledSql((...values: unknown[]) => {
  const [id, deliveryId, endpointId, attemptedAt, statusCode, error, durationMs, excerpt] = values;
  const [status, attempts, nextAttemptAt, lastStatusCode, lastError, updatedAt, key, lease] =
    values.slice(attemptColumns.length);
  return sql`with "attempt" as (
  insert into "webhook_attempts" ("id", "delivery_id", "endpoint_id", "attempted_at", "status_code", "error", "duration_ms", "response_excerpt")
  values (${id}, ${deliveryId}, ${endpointId}, ${attemptedAt}, ${statusCode}, ${error}, ${durationMs}, ${excerpt})
),
"settled" as (
  update "webhook_deliveries"
  set "status" = ${status}, "attempts" = ${attempts}, "next_attempt_at" = ${nextAttemptAt},
    "last_status_code" = ${lastStatusCode}, "last_error" = ${lastError},
    "updated_at" = ${updatedAt}, "locked_until" = 0
  where "id" = ${key} and "locked_until" = ${lease}
  returning "status", "next_attempt_at"
),
"moved" as (
  update "webhook_due" set "next_attempt_at" = ${nextAttemptAt}
  where "delivery_id" = ${key} and exists (select from "settled" where "status" = 'pending')
)
delete from "webhook_due"
where "delivery_id" = ${key} and exists (select from "settled" where "status" <> 'pending')`;
});

/**
 * Ends an attempt: the delivery's status, count and next time, its lease given
 * back, and its place in the due set (moved for a retry, left once it has ended).
 * Only while the delivery still holds the lease of that attempt's claim
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
  const changed = await settleDeliveryRow(
    db,
    ...valuesIn(settlement, settlementColumns),
    id,
    lease,
  );
  if (changed > 0) await keepDue(db, id, settlement);
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
 * endpoints busy waited behind it. Planned per call (array parameters, see
 * ShapeOptions).
 */
const logAndSettleManyInOneStatement = compiledSql(
  (...columns: unknown[]) => {
    const [id, deliveryId, endpointId, attemptedAt, statusCode, error, durationMs, excerpt] =
      columns;
    const [status, attempts, nextAttemptAt, lastStatusCode, lastError, updatedAt, key, lease] =
      columns.slice(attemptColumns.length);
    return sql`with "attempt" as (
  insert into "webhook_attempts" ("id", "delivery_id", "endpoint_id", "attempted_at", "status_code", "error", "duration_ms", "response_excerpt")
  select * from unnest(${id}::text[], ${deliveryId}::text[], ${endpointId}::text[], ${attemptedAt}::bigint[], ${statusCode}::integer[], ${error}::text[], ${durationMs}::integer[], ${excerpt}::text[])
),
"settled" as (
  update "webhook_deliveries" as "d"
  set "status" = "s"."status", "attempts" = "s"."attempts", "next_attempt_at" = "s"."next_attempt_at",
    "last_status_code" = "s"."last_status_code", "last_error" = "s"."last_error",
    "updated_at" = "s"."updated_at", "locked_until" = 0
  from unnest(${status}::text[], ${attempts}::integer[], ${nextAttemptAt}::bigint[], ${lastStatusCode}::integer[], ${lastError}::text[], ${updatedAt}::bigint[], ${key}::text[], ${lease}::bigint[])
    as "s"("status", "attempts", "next_attempt_at", "last_status_code", "last_error", "updated_at", "id", "lease")
  where "d"."id" = "s"."id" and "d"."locked_until" = "s"."lease"
  returning "d"."id", "d"."status", "d"."next_attempt_at"
)${KEEP_DUE}`;
  },
  { planEachCall: true },
);

/**
 * Records attempts and settles their deliveries (see settleDelivery): each attempt
 * is logged even where its delivery no longer holds the lease. One statement on
 * PostgreSQL, however many; two or three per attempt on SQLite, where a statement is
 * a call into the library, not a round trip.
 */
export async function logAttemptsAndSettle(
  db: Kysely<DB>,
  items: readonly AttemptSettlement[],
): Promise<void> {
  if (engineOf(db) === 'postgres') {
    await logAndSettleOnPostgres(db, items);
    return;
  }
  for (const { attempt, lease, settlement } of items) {
    await insertAttemptRow(db, attempt);
    await settleDelivery(db, attempt.delivery_id, lease, settlement);
  }
}

/** logAttemptsAndSettle on PostgreSQL: one statement, however many. */
async function logAndSettleOnPostgres(
  db: Kysely<DB>,
  items: readonly AttemptSettlement[],
): Promise<void> {
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
    // Their due rows are found by key (withIndexedPlans): without statistics, PostgreSQL
    // read the whole due set for a batch's ids at every settlement.
    await withIndexedPlans(db, () =>
      logAndSettleManyInOneStatement(
        db,
        ...attemptColumns.map((column) => items.map((item) => item.attempt[column])),
        ...settlementColumns.map((column) => items.map((item) => item.settlement[column])),
        items.map((item) => item.attempt.delivery_id),
        items.map((item) => item.lease),
      ),
    );
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
      if (startingAfter) page = page.where('id', '<', startingAfter);
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
    .selectFrom('webhook_due as q')
    .innerJoin('webhook_deliveries as d', 'd.id', 'q.delivery_id')
    .select((eb) =>
      eb.fn
        .min(
          eb
            .case()
            .when('q.next_attempt_at', '>', eb.ref('d.locked_until'))
            .then(eb.ref('q.next_attempt_at'))
            .else(eb.ref('d.locked_until'))
            .end(),
        )
        .as('due'),
    )
    .executeTakeFirst();
  return row?.due == null ? null : Number(row.due);
}
