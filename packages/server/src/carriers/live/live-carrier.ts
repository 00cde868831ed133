// The live mode's carrier: every account's connections (docs/behaviour.md#carrier-connections)
// behind the one Carrier port the dispatcher knows. It binds the connections whose lease it
// holds (one instance per bind on PostgreSQL; another takes over once a lease runs out),
// routes each submission by its sending number, and names carrier references by connection
// (`car_…/123`), since two SMSCs may issue the same id.
import { randomUUID } from 'node:crypto';
import { HTTP_CARRIER_TYPES } from '../../domain/carrier-settings.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import {
  CARRIER_CHANGED,
  leaseCarrierBind,
  listActiveCarrierConnections,
  releaseCarrierBind,
  reportCarrierBind,
  type CarrierConnectionRow,
} from '../../store/repos/carrier-connections.ts';
import { findLiveRoute } from '../../store/repos/phone-numbers.ts';
import type { Store } from '../../store/store.ts';
import {
  CarrierRejection,
  CarrierUnavailable,
  type Carrier,
  type CarrierHandlers,
  type Submission,
  type SubmitResult,
} from '../carrier.ts';
import { MinuteCounter } from './minute-counter.ts';
import { recordParts, wholeTextReceipts } from './part-receipts.ts';

/** A connection's state, as its adapter reports it. */
export interface AdapterState {
  status: 'connecting' | 'bound' | 'failed';
  /** The peer's or the network's reason for the last failure, for the operator. */
  lastError: string | null;
  inFlight: number;
}

/** One connection's link to its carrier (carriers/smpp/smpp-carrier.ts). */
export interface ConnectionAdapter {
  /** Starts connecting (and reconnecting for as long as it runs); reports to `handlers`. */
  start(handlers: CarrierHandlers): Promise<void>;
  /** Hands one submission over; CarrierUnavailable while not bound. Refs are the carrier's own. */
  submit(submission: Submission): Promise<SubmitResult>;
  state(): AdapterState;
  /** Calls `listener` whenever the state changes, so it is reported at once. */
  onStateChange(listener: () => void): void;
  stop(): Promise<void>;
}

/**
 * What an adapter is made from: the connection's shown settings and its opened secret, as
 * its type's parser made them (domain/carrier-settings.ts, domain/http-carrier-settings.ts).
 */
export interface AdapterConfig<Settings = unknown, Secret = unknown> {
  id: string;
  settings: Settings;
  secret: Secret;
  logger: Logger;
  /**
   * Calls `listener` each time the dispatcher has committed carrier references (a receipt
   * that overtook its reference can apply then); returns the way to stop.
   */
  onSubmitted(listener: () => void): () => void;
  /** SWITCHBOARD_PUBLIC_URL: HTTP carriers name their status callback on it. */
  publicUrl: string | null;
}

// Each factory reads its own type's settings; the map holds them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AdapterFactory = (config: AdapterConfig<any, any>) => ConnectionAdapter;

/** How long a lease lasts, and how often its holder renews it and reports its state. */
export const LEASE_MS = 15_000;
export const RENEW_MS = 3_000;
/** How long a number's route is remembered. */
const ROUTE_MS = 5_000;

interface Running {
  row: CarrierConnectionRow;
  window: number;
  adapter: ConnectionAdapter;
  sent: MinuteCounter;
  received: MinuteCounter;
}

export class LiveCarrier implements Carrier {
  readonly name = 'live';
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #secrets: SecretBox;
  readonly #factories: Record<string, AdapterFactory>;
  readonly #leaseMs: number;
  readonly #publicUrl: string | null;
  readonly #renewMs: number;
  readonly #holder = `${process.pid}-${randomUUID()}`;
  readonly #running = new Map<string, Running>();
  #handlers: CarrierHandlers | null = null;
  #timer: NodeJS.Timeout | null = null;
  #syncing: Promise<void> = Promise.resolve();
  #stopped = false;
  readonly #routes = new Map<string, { route: { connectionId: string } | undefined; at: number }>();
  readonly #onChange = () => {
    this.#routes.clear();
    void this.#sync();
  };

  constructor(options: {
    store: Store;
    clock: Clock;
    logger: Logger;
    secrets: SecretBox;
    factories: Record<string, AdapterFactory>;
    publicUrl?: string | null;
    /** Shorter in tests that watch a lease run out. */
    leaseMs?: number;
    renewMs?: number;
  }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#secrets = options.secrets;
    this.#factories = options.factories;
    this.#leaseMs = options.leaseMs ?? LEASE_MS;
    this.#publicUrl = options.publicUrl ?? null;
    this.#renewMs = options.renewMs ?? RENEW_MS;
  }

  /** Submissions in flight at once: each connection queues past its own window. */
  get window(): number {
    return Math.max(
      10,
      [...this.#running.values()].reduce((n, r) => n + r.window, 0),
    );
  }

  async start(handlers: CarrierHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#store.signals.on(CARRIER_CHANGED, this.#onChange);
    await this.#sync();
    this.#timer = setInterval(() => void this.#sync(), this.#renewMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#store.signals.off(CARRIER_CHANGED, this.#onChange);
    if (this.#timer) clearInterval(this.#timer);
    await this.#syncing;
    await Promise.all([...this.#running.keys()].map((id) => this.#unbind(id, 'stopped')));
  }

  async submit(submission: Submission): Promise<SubmitResult> {
    const route = await this.#routeOf(submission.from);
    if (!route) {
      throw new CarrierRejection('unreachable', 'No live carrier connection is configured.');
    }
    const running = this.#running.get(route.connectionId);
    if (!running) {
      throw new CarrierUnavailable(`Carrier connection ${route.connectionId} is not bound here.`);
    }
    const { carrierRef, partRefs } = await running.adapter.submit(submission);
    const now = this.#clock.now();
    running.sent.add(now);
    const named = (ref: string) => `${running.row.id}/${ref}`;
    if (partRefs && partRefs.length > 1) await recordParts(this.#store, partRefs.map(named), now);
    return { carrierRef: named(carrierRef) };
  }

  /**
   * The connection a number's texts leave through, remembered for ROUTE_MS: looked up per
   * submission it was a read for every text. A change of connections forgets them all; a
   * number added by another process is routed within ROUTE_MS.
   */
  async #routeOf(phone: string): Promise<{ connectionId: string } | undefined> {
    const now = this.#clock.now();
    const known = this.#routes.get(phone);
    if (known && now - known.at < ROUTE_MS) return known.route;
    const route = await findLiveRoute(this.#store.db, phone);
    if (this.#routes.size > 10_000) this.#routes.clear();
    this.#routes.set(phone, { route, at: now });
    return route;
  }

  /** Brings the bound connections in line with the configuration and renews leases; one at a time. */
  #sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(() => this.#syncOnce())
      .catch((error: unknown) => {
        this.#logger.error({ err: error }, 'carrier connections could not be brought up to date');
      });
    return this.#syncing;
  }

  async #syncOnce(): Promise<void> {
    if (this.#stopped) return;
    const rows = await listActiveCarrierConnections(this.#store.db);
    const wanted = new Set(rows.filter((r) => r.paused === 0).map((r) => r.id));
    for (const id of this.#running.keys()) {
      if (!wanted.has(id))
        await this.#unbind(id, rows.some((r) => r.id === id) ? 'paused' : 'stopped');
    }
    for (const row of rows) {
      if (row.paused !== 0 || this.#stopped) continue;
      const now = this.#clock.now();
      const held = await this.#store.write(
        (tx) => leaseCarrierBind(tx.db, row.id, this.#holder, now, now + this.#leaseMs),
        { durable: false },
      );
      // An HTTP connection holds no bind: every instance sends through it, and the lease
      // only names the one that reports its state.
      const shared = HTTP_CARRIER_TYPES.includes(row.type);
      if (!held && !shared) {
        if (this.#running.has(row.id)) await this.#unbind(row.id, null);
        continue;
      }
      if (!this.#running.has(row.id)) await this.#bind(row);
      if (held) await this.#report(row.id);
    }
  }

  async #bind(row: CarrierConnectionRow): Promise<void> {
    const factory = this.#factories[row.type];
    if (!factory) throw new Error(`No adapter for carrier connections of type ${row.type}.`);
    const settings = JSON.parse(row.settings_json) as { window: number };
    const adapter = factory({
      id: row.id,
      settings,
      secret: JSON.parse(this.#secrets.open(row.secret_sealed)) as unknown,
      logger: this.#logger.child({ carrier: row.id }),
      onSubmitted: (listener) => {
        this.#store.signals.on('outbound.submitted', listener);
        return () => this.#store.signals.off('outbound.submitted', listener);
      },
      publicUrl: this.#publicUrl,
    });
    const running: Running = {
      row,
      window: settings.window,
      adapter,
      sent: new MinuteCounter(),
      received: new MinuteCounter(),
    };
    this.#running.set(row.id, running);
    adapter.onStateChange(() => void this.#report(row.id).catch(() => {}));
    const handlers = this.#handlers!;
    await adapter.start({
      receipts: async (receipts) => {
        const named = receipts.map((r) => ({ ...r, carrierRef: `${row.id}/${r.carrierRef}` }));
        return handlers.receipts(await wholeTextReceipts(this.#store, named));
      },
      inbound: async (text) => {
        await handlers.inbound(text);
        running.received.add(this.#clock.now());
      },
      inboundPart: async (part, join) => {
        await handlers.inboundPart({ ...part, key: `${row.id}/${part.key}` }, (parts) => {
          running.received.add(this.#clock.now());
          return join(parts);
        });
      },
    });
    // Sends queued while it was down leave now, not at their next wait's end.
    this.#store.signals.emit('outbound.queued');
  }

  /** Stops a connection's adapter and gives its lease up (with `status`, unless another holds it). */
  async #unbind(id: string, status: string | null): Promise<void> {
    const running = this.#running.get(id);
    if (!running) return;
    this.#running.delete(id);
    await running.adapter.stop();
    if (status === null) return;
    const now = this.#clock.now();
    await this.#store.write((tx) => releaseCarrierBind(tx.db, id, this.#holder, status, now), {
      durable: false,
    });
  }

  async #report(id: string): Promise<void> {
    const running = this.#running.get(id);
    if (!running) return;
    const now = this.#clock.now();
    const state = running.adapter.state();
    const stats = {
      inFlight: state.inFlight,
      sentLastMinute: running.sent.count(now),
      receivedLastMinute: running.received.count(now),
    };
    await this.#store.write(
      (tx) =>
        reportCarrierBind(tx.db, id, this.#holder, {
          status: state.status,
          last_error: state.lastError,
          stats_json: JSON.stringify(stats),
          updated_at: now,
        }),
      { durable: false },
    );
  }
}
