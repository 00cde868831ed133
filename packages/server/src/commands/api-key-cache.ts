import { sha256Hex } from '../lib/secrets.ts';
import { parseKeyMode } from '../domain/api-keys.ts';
import { CommittedCache } from '../store/committed-cache.ts';
import type { ReadStore } from '../store/store.ts';
import { authenticateApiKey, bearerToken, type ApiKeyPrincipal } from './authenticate-api-key.ts';

/**
 * Authentication without a database round trip per request, and revocation
 * that still takes effect on the very next request.
 *
 * Only valid keys are remembered, by the SHA-256 of the secret (the secret
 * itself is never kept). A revocation in this process drops its key through
 * the `api_key.revoked` signal the revoke command publishes after its commit,
 * before the revoker's own answer is sent; one by another process (the CLI,
 * another instance) drops them all through `store.foreignChanges()`, so the CLI
 * revoking a key is seen by the next request (CommittedCache). On PostgreSQL
 * every request looks the key up: immediate revocation is the promise, and the
 * indexed lookup is its price there.
 * The lookup it saves was the single most frequent query of the service.
 */
export class ApiKeyCache {
  readonly #store: ReadStore;
  readonly #keys: CommittedCache<ApiKeyPrincipal>;

  constructor(store: ReadStore) {
    this.#store = store;
    this.#keys = new CommittedCache(
      store,
      'api_key.revoked',
      (payload) => (payload as { keyHash?: string }).keyHash,
    );
  }

  /** Resolves an `Authorization` header as `authenticateApiKey` does, from the cache when it can. */
  async authenticate(authorization: string | undefined): Promise<ApiKeyPrincipal> {
    const secret = bearerToken(authorization);
    const mode = secret ? parseKeyMode(secret) : null;
    if (!secret || !mode) return authenticateApiKey(this.#store.db, authorization);
    const hash = sha256Hex(secret);
    // An invalid key throws: only valid ones are kept.
    const principal = await this.#keys.get(hash, () =>
      authenticateApiKey(this.#store.db, authorization, hash),
    );
    return principal!;
  }

  /** Stops following revocations. */
  close(): void {
    this.#keys.close();
  }
}
