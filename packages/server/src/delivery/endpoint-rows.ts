import { CommittedCache } from '../store/engine/committed-cache.ts';
import {
  findWebhookEndpointById,
  WEBHOOK_ENDPOINT_CHANGED,
  type WebhookEndpointRow,
} from '../store/repos/webhook-endpoints.ts';
import type { Store } from '../store/store.ts';

/** How often other processes' changes to endpoints are looked for (see EndpointRows). */
export const FOREIGN_CHECK_MS = 20;

/**
 * The endpoint rows the delivery worker needs at every attempt (it may have been
 * disabled, deleted or given a new secret since its delivery was claimed), read
 * once instead of at every attempt: on SQLite a read after another connection's
 * commit starts with an empty page cache, and this read was the worker's most
 * frequent statement (~15 µs each under load; a round trip on PostgreSQL).
 * Every change to an endpoint row publishes WEBHOOK_ENDPOINT_CHANGED
 * (`updateWebhookEndpoint`), which reaches the next attempt; a change by
 * another process or instance reaches attempts that start FOREIGN_CHECK_MS
 * after its commit at the latest (see CommittedCache). An attempt that started
 * just before a change was always delivered with the endpoint as it was, so
 * this only widens that window, from the time of one read to a few ms.
 */
export class EndpointRows {
  readonly #store: Store;
  readonly #cache: CommittedCache<WebhookEndpointRow>;

  constructor(store: Store) {
    this.#store = store;
    this.#cache = new CommittedCache(
      store,
      WEBHOOK_ENDPOINT_CHANGED,
      (payload) => (payload as { id?: string }).id,
      { foreignCheckMs: FOREIGN_CHECK_MS },
    );
  }

  /** The endpoint as last committed, deleted or not; undefined if there is none. */
  get(id: string): Promise<WebhookEndpointRow | undefined> {
    return this.#cache.get(id, () => findWebhookEndpointById(this.#store.db, id));
  }

  /** Stops following changes. */
  close(): void {
    this.#cache.close();
  }
}
