import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { ApiKeyCache } from '../../commands/api-key-cache.ts';
import type { ApiKeyPrincipal } from '../../commands/authenticate-api-key.ts';
import { RateLimiter } from './rate-limit.ts';

/** `last_used_at` is written at most this often per key: the dashboard needs minutes, not requests. */
const TOUCH_INTERVAL_MS = 60_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route acts only through commands given the request's API key
     * (`commitAndReply`, `changes.run(…, { apiKey })`), which confirm the key in
     * their own transaction; its requests skip the lookup here (see ApiKeyCache).
     */
    keyCheckedByCommand?: boolean;
  }
  interface FastifyInstance {
    apiKeys: ApiKeyCache;
  }
  interface FastifyRequest {
    /** False while the request's key was taken from the cache and not looked up yet. */
    keyConfirmed: boolean;
  }
}

/**
 * Bearer API-key authentication and per-key rate limiting for every `/v1`
 * route not marked `config.public`. Runs on `onRequest`, before the body is
 * read, so an unauthenticated caller costs no parsing.
 */
export function registerApiKeyAuth(app: FastifyInstance): void {
  const { store, config, clock, changes } = app.deps;
  const limiter = new RateLimiter(config.rateLimit);
  const touched = new Map<string, number>();
  const keys = new ApiKeyCache(store);
  app.decorate('apiKeys', keys);
  app.addHook('onClose', async () => keys.close());
  app.decorateRequest('principal', null);
  app.decorateRequest('keyConfirmed', false);

  /** Admits an authenticated request, or throws `rate_limited`. */
  const admit = (request: FastifyRequest, principal: ApiKeyPrincipal, confirmed: boolean) => {
    request.principal = principal;
    request.keyConfirmed = confirmed;
    const now = clock.now();
    if ((touched.get(principal.keyId) ?? 0) <= now - TOUCH_INTERVAL_MS) {
      touched.set(principal.keyId, now);
      // Not awaited: the request must not wait for bookkeeping, and losing one touch is harmless.
      changes
        .run('touchApiKey', { keyId: principal.keyId, at: now })
        .catch((error: unknown) => request.log.warn({ err: error }, 'could not record key use'));
    }
    const wait = limiter.take(principal.keyId, clock.now());
    if (wait > 0) {
      throw new ApiError('rate_limited', 'Too many requests with this API key; slow down.', {
        headers: { 'retry-after': String(wait) },
      });
    }
  };

  /** Admits `request` and lets it go on, or ends it with the error `admit` threw. */
  const admitThen = (
    request: FastifyRequest,
    done: (error?: Error) => void,
    principal: ApiKeyPrincipal,
    confirmed: boolean,
  ) => {
    try {
      admit(request, principal, confirmed);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };

  /** A request refused for its key counts against its address (address-rate-limit.ts). */
  const refusal = (request: FastifyRequest, error: unknown): Error => {
    if (!(error instanceof ApiError && error.type === 'unauthorized')) return error as Error;
    try {
      app.limitUnauthenticated(request);
    } catch (limited) {
      return limited as Error;
    }
    return error;
  };

  // A callback, not a promise: a request whose principal is known is admitted in this turn.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (request.routeOptions.config.public || !request.url.startsWith('/v1')) {
      done();
      return;
    }
    const confirm = request.routeOptions.config.keyCheckedByCommand !== true;
    const known = confirm ? undefined : keys.known(request.headers.authorization);
    if (known) admitThen(request, done, known, false);
    else {
      keys.authenticate(request.headers.authorization).then(
        (principal) => admitThen(request, done, principal, confirm),
        (error: unknown) => done(refusal(request, error)),
      );
    }
  });
}

/**
 * Looks the request's key up now if it was taken from the cache: before an
 * answer that no command checked (an error, a replay). Throws `unauthorized`
 * for a key revoked meanwhile.
 */
export async function confirmKey(request: FastifyRequest): Promise<void> {
  if (!request.principal || request.keyConfirmed) return;
  await request.server.apiKeys.authenticate(request.headers.authorization);
  request.keyConfirmed = true;
}

/** The authenticated principal of a request; routes behind auth always have one. */
export function principalOf(request: FastifyRequest): NonNullable<FastifyRequest['principal']> {
  if (!request.principal) throw new ApiError('unauthorized', 'Authentication is required.');
  return request.principal;
}
