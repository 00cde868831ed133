import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../lib/logger.ts';
import { Pump } from '../lib/pump.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import {
  classifyAttempt,
  nextAttemptAt,
  retryAfterDelay,
  shouldDisableEndpoint,
} from '../domain/retry-schedule.ts';
import {
  claimDeliveries,
  insertAttempt,
  nextDeliveryDue,
  updateDelivery,
  type WebhookDeliveryRow,
} from '../store/repos/webhook-deliveries.ts';
import {
  findWebhookEndpointById,
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';
import { postWebhook, type PostResult } from './post-webhook.ts';
import { signatureHeaders } from './sign.ts';

/** Identifies the sender to receivers' logs and firewalls. */
export const USER_AGENT = 'Switchboard-Webhooks/1.0';

/** Settings of the delivery worker; the defaults are the production ones. */
export interface WebhookWorkerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  dispatcher: Dispatcher;
  /** Uniform [0, 1) for retry jitter; injected so the schedule is testable. */
  random?: () => number;
  /** Per-attempt timeout (decisions.md: 15 s). */
  timeoutMs?: number;
  /** Attempts in flight to one endpoint at most, so a slow one cannot starve the rest. */
  perEndpoint?: number;
  /** Attempts in flight in all. */
  total?: number;
  /** Refuse plain `http://` at delivery time too (off only with SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE). */
  requireHttps?: boolean;
}

const LEASE_MARGIN_MS = 30_000;

/**
 * Delivers pending webhook deliveries: claims due ones, POSTs each signed
 * envelope, logs every attempt, and settles the delivery (succeeded, retry at
 * the next time of the schedule, or failed) together with the endpoint's
 * health (a 410 or five days of failures disable it). A claim is a lease: if
 * the process dies mid-attempt, the delivery is attempted again after restart
 * with the same `evt_` id.
 */
export class WebhookWorker {
  readonly #o: Required<WebhookWorkerOptions>;
  readonly #inFlight = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #pump: Pump;
  readonly #wake = () => this.#pump.wake();
  #total = 0;

  constructor(options: WebhookWorkerOptions) {
    this.#o = {
      random: Math.random,
      timeoutMs: 15_000,
      perEndpoint: 10,
      total: 256,
      requireHttps: false,
      ...options,
    };
    this.#pump = new Pump({
      round: () => this.#round(false),
      clock: options.clock,
      pollMs: 1000,
      onError: (error) => this.#o.logger.error({ err: error }, 'webhook round failed'),
    });
  }

  /** Starts delivering; wakes whenever an event with deliveries commits. */
  start(): void {
    this.#o.store.signals.on('webhook.pending', this.#wake);
    this.#pump.start();
  }

  /** Stops claiming and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.#o.store.signals.off('webhook.pending', this.#wake);
    await this.#pump.stop();
    await Promise.all(this.#running);
  }

  /** One round that waits for its attempts (tests drive the worker with this on a fake clock). */
  async runOnce(): Promise<number> {
    const before = this.#running.size;
    await this.#round(true);
    const started = this.#running.size - before;
    await Promise.all(this.#running);
    return started;
  }

  async #round(wait: boolean) {
    const { store, clock } = this.#o;
    const now = clock.now();
    const room = this.#o.total - this.#total;
    if (room > 0) {
      const busy = [...this.#inFlight]
        .filter(([, n]) => n >= this.#o.perEndpoint)
        .map(([id]) => id);
      const claimed = await store.write((tx) =>
        claimDeliveries(
          tx.db,
          store.capabilities,
          now,
          room,
          this.#o.timeoutMs + LEASE_MARGIN_MS,
          busy,
        ),
      );
      for (const delivery of this.#admit(claimed)) this.#launch(delivery);
    }
    if (wait) return { again: 'idle' } as const;
    const due = await nextDeliveryDue(store.db);
    return due === null ? ({ again: 'idle' } as const) : ({ again: 'at', at: due } as const);
  }

  /** Keeps the per-endpoint bound within one claim; the rest is released for later. */
  #admit(claimed: WebhookDeliveryRow[]): WebhookDeliveryRow[] {
    const admitted: WebhookDeliveryRow[] = [];
    const released: string[] = [];
    const counts = new Map(this.#inFlight);
    for (const d of claimed) {
      const n = counts.get(d.endpoint_id) ?? 0;
      if (n >= this.#o.perEndpoint) released.push(d.id);
      else {
        counts.set(d.endpoint_id, n + 1);
        admitted.push(d);
      }
    }
    if (released.length > 0) {
      void this.#o.store.write((tx) =>
        tx.db
          .updateTable('webhook_deliveries')
          .set({ locked_until: 0 })
          .where('id', 'in', released)
          .execute(),
      );
    }
    return admitted;
  }

  #launch(delivery: WebhookDeliveryRow): void {
    const endpointId = delivery.endpoint_id;
    this.#inFlight.set(endpointId, (this.#inFlight.get(endpointId) ?? 0) + 1);
    this.#total++;
    const run = this.#attempt(delivery)
      .catch((error: unknown) =>
        this.#o.logger.error({ err: error, deliveryId: delivery.id }, 'attempt failed'),
      )
      .finally(() => {
        const left = (this.#inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) this.#inFlight.delete(endpointId);
        else this.#inFlight.set(endpointId, left);
        this.#total--;
        this.#running.delete(run);
        this.#pump.wake();
      });
    this.#running.add(run);
  }

  #secretsOf(endpoint: WebhookEndpointRow, now: number): string[] {
    const secrets = [this.#o.secrets.open(endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && (endpoint.previous_secret_expires_at ?? 0) > now) {
      secrets.push(this.#o.secrets.open(endpoint.previous_secret_sealed));
    }
    return secrets;
  }

  async #attempt(delivery: WebhookDeliveryRow): Promise<void> {
    const { store, clock } = this.#o;
    const [event, endpoint] = await Promise.all([
      store.db
        .selectFrom('events')
        .selectAll()
        .where('id', '=', delivery.event_id)
        .executeTakeFirst(),
      findWebhookEndpointById(store.db, delivery.endpoint_id),
    ]);
    const attemptedAt = clock.now();
    if (!event || !endpoint || endpoint.deleted_at !== null || endpoint.enabled !== 1) {
      await store.write((tx) =>
        updateDelivery(tx.db, delivery.id, {
          status: 'failed',
          last_error: 'endpoint_disabled',
          locked_until: 0,
          updated_at: attemptedAt,
        }),
      );
      return;
    }
    const body = JSON.stringify({
      id: event.id,
      type: event.type,
      createdAt: new Date(event.created_at).toISOString(),
      data: JSON.parse(event.data) as unknown,
    });
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signatureHeaders({
        eventId: event.id,
        timestamp: Math.floor(attemptedAt / 1000),
        body,
        secrets: this.#secretsOf(endpoint, attemptedAt),
      }),
    };
    // An endpoint saved while http:// was allowed is not delivered in the clear once it no longer is.
    const result: PostResult =
      this.#o.requireHttps && !endpoint.url.startsWith('https://')
        ? {
            error: 'ssrf',
            errorMessage: 'the endpoint URL must be https://',
            excerpt: null,
            durationMs: 0,
          }
        : await postWebhook({
            url: endpoint.url,
            body,
            headers,
            dispatcher: this.#o.dispatcher,
            timeoutMs: this.#o.timeoutMs,
          });
    await this.#settle(delivery, endpoint, attemptedAt, result);
  }

  async #settle(
    delivery: WebhookDeliveryRow,
    endpoint: WebhookEndpointRow,
    attemptedAt: number,
    result: PostResult,
  ): Promise<void> {
    const { store, clock } = this.#o;
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
      const next = nextAttemptAt({ attempt: attempts, now, random: this.#o.random, retryAfterMs });
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
}
