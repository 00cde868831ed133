import { sha256Hex } from '../lib/secrets.ts';
import { parseKeyMode } from '../domain/api-keys.ts';
import type { ReadStore } from '../store/store.ts';
import { authenticateApiKey, bearerToken, type ApiKeyPrincipal } from './authenticate-api-key.ts';

/** Keys remembered at most; when full the cache starts over (one lookup per key). */
const MAX_ENTRIES = 10_000;

/**
 * API-key authentication with one lookup of the key per request that only reads,
 * and none for a request that changes something, while a revocation by any
 * process still takes effect on the very next request.
 *
 * A change confirms its key inside its own write transaction (`Changes`,
 * `confirmApiKey`): exact, and nearly free there. So a request bound for a
 * command is authenticated from this cache of principals, by the SHA-256 of the
 * secret (the secret itself is never kept), and its key is checked where it
 * acts. Every other request confirms here (`confirm: true`), with one indexed
 * lookup. A revocation committed by this service drops its key at once (the
 * `api_key.revoked` signal); one by another process (the CLI, another instance)
 * is caught by those checks. Before, every request compared SQLite's
 * `data_version` (~3.5 µs under load), which the store thread's commits now move
 * all the time, or looked the key up (PostgreSQL).
 */
export class ApiKeyCache {
  readonly #store: ReadStore;
  readonly #principals = new Map<string, ApiKeyPrincipal>();
  readonly #onRevoked = (payload: unknown) => {
    const keyHash = (payload as { keyHash?: string }).keyHash;
    if (keyHash !== undefined) this.#principals.delete(keyHash);
  };

  constructor(store: ReadStore) {
    this.#store = store;
    store.signals.on('api_key.revoked', this.#onRevoked);
  }

  /** The principal of an `Authorization` header already known, if it is; nothing is looked up. */
  known(authorization: string | undefined): ApiKeyPrincipal | undefined {
    const secret = bearerToken(authorization);
    if (!secret || !parseKeyMode(secret)) return undefined;
    return this.#principals.get(sha256Hex(secret));
  }

  /**
   * The principal of an `Authorization` header, as `authenticateApiKey` resolves it:
   * the key is looked up now, and remembered for `known` if it is valid.
   */
  async authenticate(authorization: string | undefined): Promise<ApiKeyPrincipal> {
    const secret = bearerToken(authorization);
    const mode = secret ? parseKeyMode(secret) : null;
    if (!secret || !mode) return authenticateApiKey(this.#store.db, authorization);
    const hash = sha256Hex(secret);
    // An invalid key throws: only valid ones are kept.
    const principal = await authenticateApiKey(this.#store.db, authorization, hash);
    if (this.#principals.size >= MAX_ENTRIES) this.#principals.clear();
    this.#principals.set(hash, principal);
    return principal;
  }

  /** Stops following revocations. */
  close(): void {
    this.#store.signals.off('api_key.revoked', this.#onRevoked);
    this.#principals.clear();
  }
}
