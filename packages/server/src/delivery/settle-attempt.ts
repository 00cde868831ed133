import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import {
  classifyAttempt,
  nextAttemptAt,
  retryAfterDelay,
  shouldDisableEndpoint,
} from '../domain/retry-schedule.ts';
import {
  logAttemptsAndSettle,
  type AttemptSettlement,
  type WebhookDeliveryRow,
} from '../store/repos/webhook-deliveries.ts';
import {
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';
import type { WriteOptions, WriteTx, WriteUnit } from '../store/engine/write-queue.ts';
import type { PostResult } from './post-webhook.ts';

/**
 * Settlements commit without waiting for the disk (WriteOptions.durable), as claims do.
 * One lost in a crash of the database's machine (not of this process: its commit is
 * the database's already) leaves its delivery pending, as before the attempt, so it is
 * attempted again with the same event id, which a receiver already tells apart
 * (deliveries are at least once); only the attempt's log line is lost with it. Waiting
 * held the webhook lane on PostgreSQL through every flush of the log, and the claims
 * queued behind it: where the disk now and then takes 100 ms to a second for one flush,
 * every delivery stopped for that long (docs/benchmarks.md).
 */
export const SETTLEMENT: WriteOptions = { durable: false };

/** What settling an attempt needs from the worker. */
export interface SettleDeps {
  store: Store;
  clock: Clock;
  /** Uniform [0, 1) for retry jitter. */
  random: () => number;
}

/**
 * Settles one attempt in one transaction: logs it (status, latency, excerpt),
 * then marks the delivery succeeded, schedules its retry or fails it, and keeps
 * the endpoint's health (a 410 or five days of failures disable it).
 */
export async function settleAttempt(
  o: SettleDeps,
  delivery: WebhookDeliveryRow,
  endpoint: WebhookEndpointRow,
  attemptedAt: number,
  result: PostResult,
): Promise<void> {
  await o.store.write(settlementOf(o, delivery, endpoint, attemptedAt, result), SETTLEMENT);
}

/**
 * What settling an attempt writes: its log, its delivery's new state, and the
 * change of its endpoint's health if there is one.
 */
export interface SettlementPlan extends AttemptSettlement {
  endpointId: string;
  endpointChange: Partial<
    Omit<WebhookEndpointRow, 'id' | 'account_id' | 'mode' | 'created_at'>
  > | null;
}

/**
 * The write unit that settles one attempt (see settleAttempt), with its time and
 * its retry's time fixed now, when the attempt has ended, however late it commits.
 */
export function settlementOf(
  o: Omit<SettleDeps, 'store'>,
  delivery: WebhookDeliveryRow,
  endpoint: WebhookEndpointRow,
  attemptedAt: number,
  result: PostResult,
): WriteUnit<void> {
  const plan = planSettlement(o, delivery, endpoint, attemptedAt, result);
  return (tx) => applySettlements(tx, [plan]);
}

/**
 * Writes settlements together, as one unit (applySettlements). If that unit fails
 * (a database error), each is written again on its own, so that only the one at
 * fault fails; `onSplit` hears the error that made them split. Returns, for each
 * plan, a promise that settles as its write does.
 */
export function writeSettlements(
  store: Store,
  plans: readonly SettlementPlan[],
  onSplit: (error: unknown) => void,
): Promise<void>[] {
  const together = store.write((tx) => applySettlements(tx, plans), SETTLEMENT);
  if (plans.length === 1) return [together];
  const failed = together.then(
    () => false,
    (error: unknown) => {
      onSplit(error);
      return true;
    },
  );
  return plans.map((plan) =>
    failed.then((split) =>
      split ? store.write((tx) => applySettlements(tx, [plan]), SETTLEMENT) : undefined,
    ),
  );
}

/**
 * Settles attempts together in one unit: their logs and their deliveries' new
 * states first (one statement on PostgreSQL), then their endpoints' health
 * changes in the order the attempts came.
 */
export async function applySettlements(
  tx: WriteTx,
  plans: readonly SettlementPlan[],
): Promise<void> {
  await logAttemptsAndSettle(tx.db, plans);
  for (const { endpointId, endpointChange } of plans) {
    if (endpointChange) await updateWebhookEndpoint(tx, endpointId, endpointChange);
  }
}

/**
 * Works out how an attempt is settled, once it has ended (its answer, or giving
 * up): succeeded, a retry at the next time of the schedule, or failed; and its
 * endpoint's health (a 410 or five days of failures disable it, a success ends a
 * run of failures). Computed once, outside the unit that writes it: the time, the
 * retry's jitter and the attempt's id are drawn here, not in a unit that may run twice.
 */
export function planSettlement(
  o: Omit<SettleDeps, 'store'>,
  delivery: WebhookDeliveryRow,
  endpoint: WebhookEndpointRow,
  attemptedAt: number,
  result: PostResult,
): SettlementPlan {
  const now = o.clock.now();
  const outcome = classifyAttempt({
    ...(result.status !== undefined ? { status: result.status } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
  });
  const attempts = delivery.attempts + 1;
  // The wait before the next attempt counts from now, when this one has ended.
  const next =
    outcome === 'retry'
      ? nextAttemptAt({
          attempt: attempts,
          now,
          random: o.random,
          retryAfterMs:
            result.status !== undefined
              ? retryAfterDelay(result.status, result.retryAfter, now)
              : null,
        })
      : null;
  const attempt = {
    id: newId('wha', attemptedAt),
    delivery_id: delivery.id,
    endpoint_id: endpoint.id,
    attempted_at: attemptedAt,
    status_code: result.status ?? null,
    error: result.errorMessage ? `${result.error}: ${result.errorMessage}` : null,
    duration_ms: result.durationMs,
    response_excerpt: result.excerpt,
  };
  const common = {
    attempts,
    next_attempt_at: delivery.next_attempt_at,
    last_status_code: result.status ?? null,
    last_error: result.error ?? null,
    updated_at: now,
  };
  const plan = (
    settlement: AttemptSettlement['settlement'],
    endpointChange: SettlementPlan['endpointChange'],
  ): SettlementPlan => ({
    attempt,
    lease: delivery.locked_until,
    settlement,
    endpointId: endpoint.id,
    endpointChange,
  });
  if (outcome === 'success') {
    return plan(
      { ...common, status: 'succeeded' },
      endpoint.failing_since !== null ? { failing_since: null } : null,
    );
  }
  if (outcome === 'disable_endpoint') {
    return plan(
      { ...common, status: 'failed' },
      { enabled: 0, disabled_reason: 'endpoint_gone_410', updated_at: now },
    );
  }
  const settlement = {
    ...common,
    status: next === null ? ('failed' as const) : ('pending' as const),
    next_attempt_at: next ?? delivery.next_attempt_at,
  };
  const failingSince = endpoint.failing_since ?? attemptedAt;
  if (shouldDisableEndpoint(failingSince, now)) {
    return plan(settlement, {
      enabled: 0,
      disabled_reason: 'failing_for_5_days',
      failing_since: failingSince,
      updated_at: now,
    });
  }
  return plan(settlement, endpoint.failing_since === null ? { failing_since: failingSince } : null);
}
