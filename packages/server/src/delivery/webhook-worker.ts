import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { DueTimes } from '../lib/due-times.ts';
import { Pump, type PumpResult } from '../lib/pump.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { claimDeliveries, nextDeliveryDue } from '../store/repos/webhook-deliveries.ts';
import { findEventsByIds } from '../store/repos/events.ts';
import type { Store } from '../store/store.ts';
import { AttemptPipeline, envelopeOrNull, type Claimed } from './attempt-pipeline.ts';
import { EndpointRows } from './endpoint-rows.ts';
import { posterOn, type WebhookPoster } from './post-webhook.ts';

export { envelope, USER_AGENT } from './attempt-pipeline.ts';

/** Settings of the delivery worker; the defaults are the production ones. */
export type WebhookWorkerOptions = WebhookWorkerSettings &
  (
    | { dispatcher: Dispatcher; post?: never }
    /** Who makes the HTTP part of each attempt, when not this thread (see WebhookPoster). */
    | { post: WebhookPoster; dispatcher?: never }
  );

interface WebhookWorkerSettings {
  store: Store;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  /** Uniform [0, 1) for retry jitter; injected so the schedule is testable. */
  random?: () => number;
  /** Per-attempt timeout (docs/behaviour.md#retry-schedule: 15 s). */
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
 * Most deliveries claimed in one round. Claimed deliveries an endpoint cannot
 * take yet wait here, in memory, and start as its attempts finish. Before, the
 * excess of every claim was released with another write, and every finished
 * attempt claimed ~200 rows to start one: 545 deliveries/s to four local
 * endpoints where a bare signed-POST loop did 4 500/s.
 */
const CLAIM_CHUNK = 64;

/** How often the worker looks for due deliveries when nothing signalled one. */
const POLL_MS = 1000;

/**
 * How long a claim that came back short stands for the same busy endpoints (see
 * #shortClaim): a poll interval, since what it may miss meanwhile is what a poll
 * would find. A retry this worker scheduled ends the hold when it falls due (see
 * #retries); a lapsed lease (45 s), or a retry another instance scheduled, may wait up
 * to a second more while attempts run; a worker with nothing to do ends the hold at the
 * next due time it read. With 100 ms, a
 * backlog of 20 000 deliveries to four busy endpoints cost a claim that walked
 * them all and found nothing ten times a second (3–11 ms each, holding the
 * writer): 9.4 k → 10.4 k deliveries/s, the mean of six runs each
 * (docs/benchmarks.md).
 */
const SHORT_CLAIM_HOLD_MS = POLL_MS;

/**
 * The grain of the wake-ups for retries this worker scheduled (#expectRetry): late by
 * at most this, against the schedule's ±10 % (500 ms on the first retry), and at most
 * ten rounds a second however many attempts fail.
 */
const RETRY_WAKE_MS = 100;

/**
 * Schedules webhook attempts: claims due deliveries (a claim is a lease: if the
 * process dies mid-attempt, the delivery is attempted again after restart with the
 * same `evt_` id), bounds them per endpoint and in all, holds off claims that would
 * find nothing, and wakes for the retries it scheduled. Each attempt itself (sign,
 * POST, log and settle) is the AttemptPipeline's.
 */
export class WebhookWorker {
  readonly #o: Required<WebhookWorkerSettings>;
  readonly #inFlight = new Map<string, number>();
  /**
   * Claimed, not yet started, per endpoint (each under its lease), with its event:
   * read in one query per claim instead of one per attempt, since an event never
   * changes once recorded.
   */
  readonly #waiting = new Map<string, Claimed[]>();
  #waitingCount = 0;
  #launched = 0;
  readonly #running = new Set<Promise<void>>();
  readonly #pump: Pump;
  /**
   * The endpoints the last claim skipped as busy, and when, if it found fewer
   * deliveries than it asked for. Until a new delivery is signalled, a claim that
   * skips those endpoints again (or more) would find nothing new, after walking
   * every pending delivery of theirs: 2 ms each with 20 000 pending, and rounds
   * run at every attempt's end. Rows falling due with time (retries, lapsed
   * leases) are picked up once the hold is over (`until`): SHORT_CLAIM_HOLD_MS
   * later, or at the next due time when nothing else was running.
   */
  #shortClaim: { busy: string[]; at: number; until: number } | null = null;
  /** Counts new-delivery signals, so a claim that raced one does not become the memo. */
  #signals = 0;
  /**
   * The retries this worker scheduled that no round has looked for since they fell due.
   * While attempts run, rounds do not read the next due time (see #round), and the retry
   * of an attempt that just failed is not even readable until its settlement commits;
   * without these, a retry waited for the next poll, up to a second past the schedule's
   * 5 s ± 10 % (docs/behaviour.md#retry-schedule).
   */
  readonly #retries = new DueTimes();
  readonly #wake = () => {
    this.#signals++;
    this.#shortClaim = null;
    this.#pump.wake();
  };
  #total = 0;
  readonly #endpoints: EndpointRows;
  readonly #pipeline: AttemptPipeline;

  constructor(options: WebhookWorkerOptions) {
    const { dispatcher, post, ...settings } = options;
    this.#o = {
      random: Math.random,
      timeoutMs: 15_000,
      perEndpoint: 10,
      total: 256,
      requireHttps: false,
      ...settings,
    };
    this.#endpoints = new EndpointRows(options.store);
    this.#pipeline = new AttemptPipeline({
      ...this.#o,
      post: post ?? posterOn(dispatcher!),
      endpoints: this.#endpoints,
      onRetry: (at, endpointId) => this.#expectRetry(at, endpointId),
    });
    this.#pump = new Pump({
      round: () => this.#round(false),
      clock: options.clock,
      pollMs: POLL_MS,
      onError: (error) => this.#o.logger.error({ err: error }, 'webhook round failed'),
    });
  }

  /** Starts delivering; wakes whenever an event with deliveries commits. */
  start(): void {
    this.#o.store.signals.on('webhook.pending', this.#wake);
    this.#pump.start();
  }

  /** Stops claiming, waits for the attempts in flight and gives back the claims not started. */
  async stop(): Promise<void> {
    this.#o.store.signals.off('webhook.pending', this.#wake);
    await this.#pump.stop();
    const unstarted = [...this.#waiting.values()].flat().map((c) => c.delivery.id);
    this.#waiting.clear();
    this.#waitingCount = 0;
    this.#pipeline.flush();
    while (this.#running.size > 0) await Promise.all(this.#running);
    if (unstarted.length > 0) await this.#release(unstarted);
    this.#endpoints.close();
  }

  /** One round that waits for its attempts (tests drive the worker with this on a fake clock). */
  async runOnce(): Promise<number> {
    const before = this.#launched;
    this.#shortClaim = null;
    await this.#round(true);
    while (this.#running.size > 0) await Promise.all(this.#running);
    return this.#launched - before;
  }

  async #round(wait: boolean) {
    const { store, clock } = this.#o;
    const now = clock.now();
    // This round claims what is due by now, the retries expected by then included.
    this.#retries.passTo(now);
    const room = Math.min(CLAIM_CHUNK, this.#o.total - this.#total - this.#waitingCount);
    // Endpoints with enough claimed and waiting here get none this round.
    const busy = [...this.#waiting]
      .filter(([, queue]) => !this.#wantsMore(queue))
      .map(([id]) => id);
    const short = this.#shortClaim;
    // A clock set back ends the hold as well: its times no longer say what has passed.
    const pointless =
      short !== null &&
      now >= short.at &&
      now < short.until &&
      short.busy.every((id) => busy.includes(id));
    if (pointless) {
      // Attempts' ends wake a round before then if an endpoint frees; rows falling due with
      // time are claimed once the hold is over.
      return { again: 'at', at: short.until } as const;
    }
    const signals = this.#signals;
    let claimedAny = room <= 0;
    if (!claimedAny) {
      // A lease lost in a crash is taken again after it lapses: no need to wait for the disk.
      const claimed = await store.write(
        (tx) => claimDeliveries(tx.db, now, room, this.#o.timeoutMs + LEASE_MARGIN_MS, busy),
        { durable: false },
      );
      const events = new Map(
        (await findEventsByIds(store.db, [...new Set(claimed.map((d) => d.event_id))])).map((e) => [
          e.id,
          { event: e, body: envelopeOrNull(e) },
        ]),
      );
      for (const delivery of claimed) {
        const queue = this.#waiting.get(delivery.endpoint_id) ?? [];
        const found = events.get(delivery.event_id);
        queue.push({ delivery, event: found?.event, body: found?.body ?? null });
        this.#waiting.set(delivery.endpoint_id, queue);
        this.#waitingCount++;
      }
      for (const endpointId of new Set(claimed.map((d) => d.endpoint_id))) this.#start(endpointId);
      claimedAny = claimed.length > 0;
      // A short claim becomes the memo, unless a new delivery was signalled meanwhile (the
      // claim may have run before its commit). A full claim leaves the memo as it was: it
      // took rows only of endpoints the memo had seen busy, and says nothing of the others.
      if (claimed.length < room && this.#signals === signals) {
        this.#shortClaim = { busy, at: now, until: now + SHORT_CLAIM_HOLD_MS };
      }
    }
    // While attempts run, their ends wake the next round; the next due time is only needed
    // when nothing was claimed and nothing runs (its query reads every pending delivery:
    // at every round it took half of the worker's time with a backlog of 20 000).
    if (wait || claimedAny || this.#total > 0 || this.#waitingCount > 0) {
      return this.#idleUntil(Infinity);
    }
    const due = await nextDeliveryDue(store.db);
    // Due now but not claimed: every endpoint with due work is busy, and its attempts wake us.
    if (due !== null && due <= now) return this.#idleUntil(Infinity);
    return this.#idleUntil(due ?? Infinity);
  }

  /**
   * The next round: at `due` (the next due time read) or at the retry this worker
   * expects, whichever comes first; else when something wakes it (or at a poll).
   */
  #idleUntil(due: number): PumpResult {
    const at = Math.min(due, this.#retries.next());
    if (at === Infinity) return { again: 'idle' };
    this.#endHoldBy(at);
    return { again: 'at', at };
  }

  /** The round at `at` must claim: the hold on short claims would otherwise put it off. */
  #endHoldBy(at: number): void {
    if (this.#shortClaim && at < this.#shortClaim.until) this.#shortClaim.until = at;
  }

  /**
   * Starts waiting deliveries of an endpoint up to its bound. One whose lease
   * would lapse before its attempt could time out is dropped instead: after the
   * lease it is claimed again, so it is never attempted twice at once.
   */
  #start(endpointId: string): void {
    const queue = this.#waiting.get(endpointId);
    const now = this.#o.clock.now();
    while (
      queue &&
      queue.length > 0 &&
      (this.#inFlight.get(endpointId) ?? 0) < this.#o.perEndpoint
    ) {
      const claimed = queue.shift()!;
      this.#waitingCount--;
      if (claimed.delivery.locked_until - now > this.#o.timeoutMs) this.#launch(claimed);
    }
    if (queue?.length === 0) this.#waiting.delete(endpointId);
  }

  /**
   * Whether an endpoint with `queue` waiting here should get more in the next claim:
   * once fewer wait than it may have in flight, so the claim's round trips run while
   * those start, and its slots never stand empty waiting for one. Claimed only when a
   * slot freed with nothing left waiting, each endpoint idled a claim's time per
   * CLAIM_CHUNK attempts: on PostgreSQL, under load, a few milliseconds, against ~3 ms
   * per attempt to a local receiver (docs/benchmarks.md).
   */
  #wantsMore(queue: Claimed[] | undefined): boolean {
    return (queue?.length ?? 0) < this.#o.perEndpoint;
  }

  #release(ids: string[]): Promise<unknown> {
    return this.#o.store.write(
      (tx) =>
        tx.db
          .updateTable('webhook_deliveries')
          .set({ locked_until: 0 })
          .where('id', 'in', ids)
          .execute(),
      { durable: false },
    );
  }

  #launch(claimed: Claimed): void {
    const { delivery } = claimed;
    const endpointId = delivery.endpoint_id;
    this.#inFlight.set(endpointId, (this.#inFlight.get(endpointId) ?? 0) + 1);
    this.#total++;
    this.#launched++;
    const logFailure = (error: unknown) =>
      this.#o.logger.error({ err: error, deliveryId: delivery.id }, 'attempt failed');
    const run = this.#pipeline
      .run(claimed)
      .then(({ settling }) => {
        // The endpoint's slot is free once it has answered; the attempt's log and the
        // delivery's new status commit meanwhile (the delivery stays leased until then).
        const settled = settling.catch(logFailure).finally(() => this.#running.delete(settled));
        this.#running.add(settled);
      }, logFailure)
      .finally(() => {
        const left = (this.#inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) this.#inFlight.delete(endpointId);
        else this.#inFlight.set(endpointId, left);
        this.#total--;
        this.#running.delete(run);
        this.#start(endpointId);
        // Claim more only once this endpoint is running low (#wantsMore). A claim while
        // every endpoint has plenty waiting finds nothing, after walking every pending
        // delivery (2 ms with 20 000 of them, woken at each attempt's end).
        if (this.#wantsMore(this.#waiting.get(endpointId))) this.#pump.wake();
      });
    this.#running.add(run);
  }

  /**
   * Makes sure a round runs when a retry this worker scheduled falls due (see #retries),
   * unless its endpoint is one the short-claim hold saw busy: a claim would pass over it,
   * and the end of one of its attempts wakes a round that claims it. Times are taken up
   * to the next RETRY_WAKE_MS, so that a stream of failures wakes rounds (each a claim
   * that walks the due deliveries, milliseconds with a backlog) at most that often.
   */
  #expectRetry(at: number, endpointId: string): void {
    if (this.#shortClaim?.busy.includes(endpointId)) return;
    const wakeAt = Math.ceil(at / RETRY_WAKE_MS) * RETRY_WAKE_MS;
    this.#retries.add(wakeAt);
    this.#endHoldBy(wakeAt);
    this.#pump.wakeAt(wakeAt);
  }
}
