import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import {
  classifyAttempt,
  nextAttemptAt,
  retryAfterDelay,
  shouldDisableEndpoint,
} from '../domain/retry-schedule.ts';
import {
  insertAttempt,
  updateDelivery,
  type WebhookDeliveryRow,
} from '../store/repos/webhook-deliveries.ts';
import {
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';
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
  const { store, clock } = o;
  const now = clock.now();
  const outcome = classifyAttempt({
    ...(result.status !== undefined ? { status: result.status } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
  });
  const attempts = delivery.attempts + 1;
  await store.write(async (tx) => {
    await insertAttempt(tx.db, {
      id: newId('wha', attemptedAt),
      delivery_id: delivery.id,
      endpoint_id: endpoint.id,
      attempted_at: attemptedAt,
      status_code: result.status ?? null,
      error: result.errorMessage ? `${result.error}: ${result.errorMessage}` : null,
      duration_ms: result.durationMs,
      response_excerpt: result.excerpt,
    });
    const common = {
      attempts,
      locked_until: 0,
      last_status_code: result.status ?? null,
      last_error: result.error ?? null,
      updated_at: now,
    };
    if (outcome === 'success') {
      await updateDelivery(tx.db, delivery.id, { ...common, status: 'succeeded' });
      if (endpoint.failing_since !== null) {
        await updateWebhookEndpoint(tx.db, endpoint.id, { failing_since: null });
      }
      return;
    }
    if (outcome === 'disable_endpoint') {
      await updateDelivery(tx.db, delivery.id, { ...common, status: 'failed' });
      await updateWebhookEndpoint(tx.db, endpoint.id, {
        enabled: 0,
        disabled_reason: 'endpoint_gone_410',
        updated_at: now,
      });
      return;
    }
    const retryAfterMs =
      result.status !== undefined ? retryAfterDelay(result.status, result.retryAfter, now) : null;
    const next = nextAttemptAt({ attempt: attempts, now, random: o.random, retryAfterMs });
    await updateDelivery(tx.db, delivery.id, {
      ...common,
      status: next === null ? 'failed' : 'pending',
      next_attempt_at: next ?? delivery.next_attempt_at,
    });
    const failingSince = endpoint.failing_since ?? attemptedAt;
    if (shouldDisableEndpoint(failingSince, now)) {
      await updateWebhookEndpoint(tx.db, endpoint.id, {
        enabled: 0,
        disabled_reason: 'failing_for_5_days',
        failing_since: failingSince,
        updated_at: now,
      });
    } else if (endpoint.failing_since === null) {
      await updateWebhookEndpoint(tx.db, endpoint.id, { failing_since: failingSince });
    }
  });
}
