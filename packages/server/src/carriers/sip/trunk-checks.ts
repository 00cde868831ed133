// The state of each SIP trunk, as the dashboard shows it (docs/behaviour.md#voice): one
// instance holds each trunk's lease (carrier_binds, as SMSC binds are held) and asks it with
// OPTIONS every interval; `up`, or `failed` with why (no answer, or the answer that refused).
import { randomUUID } from 'node:crypto';
import type { SipTrunkSettings } from '../../domain/sip-trunk-settings.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import {
  leaseCarrierBind,
  listActiveCarrierConnections,
  releaseCarrierBind,
  reportCarrierBind,
} from '../../store/repos/carrier-connections.ts';
import type { Store } from '../../store/store.ts';
import { isUp, probeTrunk } from './options-probe.ts';

export interface TrunkChecksOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How often each trunk is asked. */
  intervalMs?: number;
  /** How long an answer is waited for. */
  timeoutMs?: number;
  /** CAs a TLS trunk's certificate must lead to (PEM); null or absent: Node's default ones. */
  ca?: string | string[] | null;
}

export class TrunkChecks {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #ca: string | string[] | null;
  readonly #holder = `${process.pid}-${randomUUID()}`;
  readonly #held = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: TrunkChecksOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#intervalMs = options.intervalMs ?? 30_000;
    this.#ca = options.ca ?? null;
    this.#timeoutMs = Math.min(options.timeoutMs ?? 4_000, this.#intervalMs);
  }

  start(): void {
    const tick = () => {
      this.#running = this.checkOnce()
        .catch((error: unknown) => this.#logger.error({ err: error }, 'trunk checks failed'))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#intervalMs);
        });
    };
    tick();
  }

  /** Asks every trunk this instance holds (or can take) once, and writes what it answered. */
  async checkOnce(): Promise<void> {
    const rows = await listActiveCarrierConnections(this.#store.db, 'sip');
    await Promise.all(
      rows.map(async (row) => {
        if (this.#stopped) return;
        const now = this.#clock.now();
        if (row.paused !== 0) {
          if (this.#held.delete(row.id)) await this.#release(row.id, 'paused');
          return;
        }
        // Three intervals: a holder that stops is replaced soon, one that is slow is not.
        const until = now + 3 * this.#intervalMs;
        const held = await this.#store.write(
          (tx) => leaseCarrierBind(tx.db, row.id, this.#holder, now, until),
          { durable: false },
        );
        if (!held) {
          this.#held.delete(row.id);
          return;
        }
        this.#held.add(row.id);
        const settings = JSON.parse(row.settings_json) as SipTrunkSettings;
        const result = await probeTrunk(settings, this.#timeoutMs, { ca: this.#ca });
        const up = isUp(result);
        const lastError = up
          ? null
          : result.answered
            ? `refused OPTIONS: ${result.code} ${result.reason}`
            : result.reason;
        await this.#store.write(
          (tx) =>
            reportCarrierBind(tx.db, row.id, this.#holder, {
              status: up ? 'up' : 'failed',
              last_error: lastError,
              stats_json: '{}',
              updated_at: this.#clock.now(),
            }),
          { durable: false },
        );
      }),
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    for (const id of this.#held) await this.#release(id, 'stopped');
    this.#held.clear();
  }

  #release(id: string, status: string): Promise<void> {
    return this.#store.write(
      (tx) => releaseCarrierBind(tx.db, id, this.#holder, status, this.#clock.now()),
      { durable: false },
    );
  }
}
