import {
  findWebhookEndpointById,
  WEBHOOK_ENDPOINT_CHANGED,
  type WebhookEndpointRow,
} from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';

/** Rows remembered at most; when full the copies start over (one read per endpoint). */
const MAX_ENTRIES = 10_000;

/**
 * The endpoint rows the delivery worker needs at every attempt (it may have been
 * disabled, deleted or given a new secret since its delivery was claimed), read
 * once instead of at every attempt: on SQLite a read after another connection's
 * commit starts with an empty page cache, and this read was the worker's most
 * frequent statement (~15 µs each under load).
 *
 * A copy is dropped as `ApiKeyCache` drops a key:
 * - in this process, by WEBHOOK_ENDPOINT_CHANGED, which every change to an
 *   endpoint row publishes after its commit (`updateWebhookEndpoint`);
 * - for a change by another process (the CLI, another instance), by
 *   `store.foreignChanges()`, checked at every attempt, which drops them all.
 *   On PostgreSQL it moves on every call, so every attempt reads the row, as before.
 */
export class EndpointRows {
  readonly #store: Store;
  readonly #entries = new Map<string, WebhookEndpointRow>();
  #version: number | null = null;
  /** Moves on every local change, so a read that raced one is not remembered. */
  #generation = 0;
  readonly #onChanged = (payload: { id?: string }) => {
    this.#generation++;
    if (payload.id) this.#entries.delete(payload.id);
  };

  constructor(store: Store) {
    this.#store = store;
    store.signals.on(WEBHOOK_ENDPOINT_CHANGED, this.#onChanged);
  }

  /** The endpoint as last committed, deleted or not; undefined if there is none. */
  async get(id: string): Promise<WebhookEndpointRow | undefined> {
    const version = this.#store.foreignChanges();
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
    }
    const cached = this.#entries.get(id);
    if (cached) return cached;
    const generation = this.#generation;
    const row = await findWebhookEndpointById(this.#store.db, id);
    if (row && generation === this.#generation && version === this.#version) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(id, row);
    }
    return row;
  }

  /** Stops following changes. */
  close(): void {
    this.#store.signals.off(WEBHOOK_ENDPOINT_CHANGED, this.#onChanged);
    this.#entries.clear();
  }
}
