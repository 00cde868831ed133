import { sha256Hex } from '../lib/secrets.ts';
import { parseKeyMode } from '../domain/api-keys.ts';
import type { Store } from '../store/store.ts';
import { authenticateApiKey, bearerToken, type ApiKeyPrincipal } from './authenticate-api-key.ts';

/** Keys remembered at most; when full the cache starts over (one lookup per key). */
const MAX_ENTRIES = 10_000;

/**
 * Authentication without a database round trip per request, and revocation
 * that still takes effect on the very next request.
 *
 * Only valid keys are remembered, by the SHA-256 of the secret (the secret
 * itself is never kept). An entry is dropped:
 * - in this process, by the `api_key.revoked` signal the revoke command publishes
 *   after its commit, before the revoker's own answer is sent;
 * - for a revocation by another process (the CLI, another instance), by
 *   `store.foreignChanges()`, checked on every request, which clears the whole
 *   cache. On SQLite that is the writer's `PRAGMA data_version` (about 1 µs, no
 *   table read), which moves on any other process's commit, so the CLI revoking a
 *   key is seen by the next request.
 * On PostgreSQL `foreignChanges()` moves on every call, so every request looks
 * the key up: a NOTIFY from the revoking transaction would reach other
 * instances only after its commit, leaving a gap in which one of them still
 * served the revoked key. Immediate revocation is the promise; the indexed
 * lookup is its price there.
 * The lookup it saves was the single most frequent query of the service.
 */
export class ApiKeyCache {
  readonly #store: Store;
  readonly #entries = new Map<string, ApiKeyPrincipal>();
  #version: number | null = null;
  /** Moves on every local revocation, so a lookup that raced one is not remembered. */
  #generation = 0;
  readonly #onRevoked = (payload: { keyHash?: string }) => {
    this.#generation++;
    if (payload.keyHash) this.#entries.delete(payload.keyHash);
  };

  constructor(store: Store) {
    this.#store = store;
    store.signals.on('api_key.revoked', this.#onRevoked);
  }

  /** Resolves an `Authorization` header as `authenticateApiKey` does, from the cache when it can. */
  async authenticate(authorization: string | undefined): Promise<ApiKeyPrincipal> {
    const secret = bearerToken(authorization);
    const mode = secret ? parseKeyMode(secret) : null;
    if (!secret || !mode) return authenticateApiKey(this.#store.db, authorization);
    const version = this.#store.foreignChanges();
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
    }
    const hash = sha256Hex(secret);
    const cached = this.#entries.get(hash);
    if (cached) return cached;
    const generation = this.#generation;
    const principal = await authenticateApiKey(this.#store.db, authorization, hash);
    if (generation === this.#generation && version === this.#version) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(hash, principal);
    }
    return principal;
  }

  /** Stops following revocations. */
  close(): void {
    this.#store.signals.off('api_key.revoked', this.#onRevoked);
    this.#entries.clear();
  }
}
