import type { Clock } from '../lib/clock.ts';
import { Gather } from '../lib/gather.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { isoTime } from '../presenters/time.ts';
import type { EventRow } from '../store/repos/events.ts';
import { settleDelivery, type WebhookDeliveryRow } from '../store/repos/webhook-deliveries.ts';
import type { WebhookEndpointRow } from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';
import type { EndpointRows } from './endpoint-rows.ts';
import type { PostResult, WebhookPoster } from './post-webhook.ts';
import {
  planSettlement,
  SETTLEMENT,
  writeSettlements,
  type SettlementPlan,
} from './settle-attempt.ts';
import { signatureHeaders } from './sign.ts';

// One webhook attempt in three stages, as Svix's worker has them: prepare (the endpoint
// as it is now, the envelope, the signature headers), post (post-webhook.ts), settle (the
// attempt's log and the delivery's next state, gathered into shared writes). The worker
// (webhook-worker.ts) decides only which deliveries run when.

/** Identifies the sender to receivers' logs and firewalls. */
export const USER_AGENT = 'Switchboard-Webhooks/1.0';

/**
 * A claimed delivery, its event (undefined if the event is gone: the attempt fails it)
 * and the event's envelope, written once for all the deliveries of the event in a claim.
 */
export interface Claimed {
  delivery: WebhookDeliveryRow;
  event: EventRow | undefined;
  /** Null when it could not be written: the attempt tries again, and fails alone. */
  body: string | null;
}

/**
 * The JSON body of a delivery: `{id, type, createdAt, data}`. `data` is stored
 * as the JSON text it was recorded as, so it is spliced in rather than parsed
 * and written again for every attempt.
 */
export function envelope(event: EventRow): string {
  const head = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: isoTime(event.created_at),
  });
  return `${head.slice(0, -1)},"data":${event.data}}`;
}

/** The envelope of an event, or null if it cannot be written (a date out of range). */
export function envelopeOrNull(event: EventRow): string | null {
  try {
    return envelope(event);
  } catch {
    return null;
  }
}

/** How long an attempt's settlement waits for others to commit with (see #settlements). */
const SETTLE_GATHER_MS = 5;
/** Settlements committed together at most. */
const SETTLE_BATCH = 64;

/** What the pipeline needs; `onRetry` hears of each retry it schedules. */
export interface AttemptPipelineOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  random: () => number;
  timeoutMs: number;
  requireHttps: boolean;
  post: WebhookPoster;
  endpoints: EndpointRows;
  onRetry(at: number, endpointId: string): void;
}

/** A prepared attempt: where to, what, and with which headers; or why there is none. */
type Prepared =
  { endpoint: WebhookEndpointRow; body: string; headers: Record<string, string> } | { gone: true };

export class AttemptPipeline {
  readonly #o: AttemptPipelineOptions;
  /** Opened secrets by their sealed text: decrypting one per attempt was a tenth of the worker's time. */
  readonly #opened = new Map<string, string>();

  constructor(options: AttemptPipelineOptions) {
    this.#o = options;
  }

  /**
   * Makes one attempt and resolves once the endpoint has answered (or could not be
   * reached), with the settling of the attempt still running (wrapped: a promise
   * returned from an async function would be waited for).
   */
  async run(claimed: Claimed): Promise<{ settling: Promise<void> }> {
    const attemptedAt = this.#o.clock.now();
    const prepared = await this.#prepare(claimed, attemptedAt);
    if ('gone' in prepared) {
      await this.#failGone(claimed.delivery, attemptedAt);
      return { settling: Promise.resolve() };
    }
    const result = await this.#post(prepared);
    const plan = planSettlement(this.#o, claimed.delivery, prepared.endpoint, attemptedAt, result);
    if (plan.settlement.status === 'pending') {
      this.#o.onRetry(plan.settlement.next_attempt_at, prepared.endpoint.id);
    }
    return { settling: this.#settle(plan) };
  }

  /** Writes the settlements still gathering (the worker is stopping). */
  flush(): void {
    this.#settlements.flush();
  }

  async #prepare({ delivery, event, body }: Claimed, attemptedAt: number): Promise<Prepared> {
    // The endpoint as it is now: it may have been disabled or rotated since the claim.
    const endpoint = await this.#o.endpoints.get(delivery.endpoint_id);
    if (!event || !endpoint || endpoint.deleted_at !== null || endpoint.enabled !== 1) {
      return { gone: true };
    }
    // Written again if the claim could not: this throws again, for this delivery only.
    const written = body ?? envelope(event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signatureHeaders({
        eventId: event.id,
        timestamp: Math.floor(attemptedAt / 1000),
        body: written,
        secrets: this.#secretsOf(endpoint, attemptedAt),
      }),
    };
    return { endpoint, body: written, headers };
  }

  #post({ endpoint, body, headers }: Exclude<Prepared, { gone: true }>): Promise<PostResult> {
    // An endpoint saved while http:// was allowed is not delivered in the clear once it no longer is.
    if (this.#o.requireHttps && !endpoint.url.startsWith('https://')) {
      return Promise.resolve({
        error: 'ssrf',
        errorMessage: 'the endpoint URL must be https://',
        excerpt: null,
        durationMs: 0,
      });
    }
    return this.#o.post({ url: endpoint.url, body, headers, timeoutMs: this.#o.timeoutMs });
  }

  /** A delivery whose event or endpoint is gone fails; lost in a crash, it comes back here. */
  async #failGone(delivery: WebhookDeliveryRow, attemptedAt: number): Promise<void> {
    await this.#o.store.write(
      (tx) =>
        settleDelivery(tx.db, delivery.id, delivery.locked_until, {
          status: 'failed',
          attempts: delivery.attempts,
          next_attempt_at: delivery.next_attempt_at,
          last_status_code: delivery.last_status_code,
          last_error: 'endpoint_disabled',
          updated_at: attemptedAt,
        }),
      SETTLEMENT,
    );
  }

  /**
   * Settlements wait up to SETTLE_GATHER_MS for others and are then written
   * together, as one unit (writeSettlements): on PostgreSQL one statement (see
   * logAttemptsAndSettle) instead of a round trip of the webhook lane each, which
   * held the lane, and the claims behind it, for as many round trips; on SQLite
   * one unit's bookkeeping instead of one each (its statements, ~7 µs a
   * settlement, hold the writer up to SETTLE_BATCH times that). Nothing waits for a
   * settlement but the delivery's lease (45 s) and the log; its times were fixed
   * when the attempt ended (planSettlement).
   */
  readonly #settlements = new Gather<{
    plan: SettlementPlan;
    done: (written: Promise<void>) => void;
  }>(
    (gathered) => {
      const written = writeSettlements(
        this.#o.store,
        gathered.map((g) => g.plan),
        (error) =>
          this.#o.logger.warn({ err: error }, 'settlements failed together; writing each alone'),
      );
      gathered.forEach((g, i) => g.done(written[i]!));
    },
    { waitMs: SETTLE_GATHER_MS, maxItems: SETTLE_BATCH },
  );

  /** Resolves (or rejects) as the settlement's write does, once it has been submitted. */
  #settle(plan: SettlementPlan): Promise<void> {
    return new Promise<void>((resolve) => this.#settlements.add({ plan, done: resolve }));
  }

  #open(sealed: string): string {
    let secret = this.#opened.get(sealed);
    if (secret === undefined) {
      if (this.#opened.size >= 1000) this.#opened.clear();
      secret = this.#o.secrets.open(sealed);
      this.#opened.set(sealed, secret);
    }
    return secret;
  }

  #secretsOf(endpoint: WebhookEndpointRow, now: number): string[] {
    const secrets = [this.#open(endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && (endpoint.previous_secret_expires_at ?? 0) > now) {
      secrets.push(this.#open(endpoint.previous_secret_sealed));
    }
    return secrets;
  }
}
