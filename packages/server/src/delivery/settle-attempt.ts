import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import {
  classifyAttempt,
  nextAttemptAt,
  retryAfterDelay,
  shouldDisableEndpoint,
} from '../domain/retry-schedule.ts';
import {
  logAttemptAndSettle,
  type Settlement,
  type WebhookDeliveryRow,
} from '../store/repos/webhook-deliveries.ts';
import {
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';
import type { WriteTx, WriteUnit } from '../store/write-queue.ts';
import type { PostResult } from './post-webhook.ts';

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
  await o.store.write(settlementOf(o, delivery, endpoint, attemptedAt, result));
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
  const now = o.clock.now();
  const outcome = classifyAttempt({
    ...(result.status !== undefined ? { status: result.status } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
  });
  const attempts = delivery.attempts + 1;
  // The wait before the next attempt counts from now, when this one has ended (its
  // answer, or giving up). Drawn here, outside the unit, which may run twice.
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
  const settle = (tx: WriteTx, settlement: Settlement) =>
    logAttemptAndSettle(tx.db, attempt, delivery.locked_until, settlement);
  return async (tx) => {
    if (outcome === 'success') {
      await settle(tx, { ...common, status: 'succeeded' });
      if (endpoint.failing_since !== null) {
        await updateWebhookEndpoint(tx, endpoint.id, { failing_since: null });
      }
      return;
    }
    if (outcome === 'disable_endpoint') {
      await settle(tx, { ...common, status: 'failed' });
      await updateWebhookEndpoint(tx, endpoint.id, {
        enabled: 0,
        disabled_reason: 'endpoint_gone_410',
        updated_at: now,
      });
      return;
    }
    await settle(tx, {
      ...common,
      status: next === null ? 'failed' : 'pending',
      next_attempt_at: next ?? delivery.next_attempt_at,
    });
    const failingSince = endpoint.failing_since ?? attemptedAt;
    if (shouldDisableEndpoint(failingSince, now)) {
      await updateWebhookEndpoint(tx, endpoint.id, {
        enabled: 0,
        disabled_reason: 'failing_for_5_days',
        failing_since: failingSince,
        updated_at: now,
      });
    } else if (endpoint.failing_since === null) {
      await updateWebhookEndpoint(tx, endpoint.id, { failing_since: failingSince });
    }
  };
}
