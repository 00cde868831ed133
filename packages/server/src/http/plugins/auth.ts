import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { authenticateApiKey } from '../../commands/authenticate-api-key.ts';
import { RateLimiter } from './rate-limit.ts';

/**
 * Bearer API-key authentication and per-key rate limiting for every `/v1`
 * route not marked `config.public`. Runs on `onRequest`, before the body is
 * read, so an unauthenticated caller costs no parsing.
 */
export function registerApiKeyAuth(app: FastifyInstance): void {
  const { store, config, clock } = app.deps;
  const limiter = new RateLimiter(config.rateLimit);
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.routeOptions.config.public || !request.url.startsWith('/v1')) return;
    const principal = await authenticateApiKey(store.db, request.headers.authorization);
    request.principal = principal;
    const wait = limiter.take(principal.keyId, clock.now());
    if (wait > 0) {
      throw new ApiError('rate_limited', 'Too many requests with this API key; slow down.', {
        headers: { 'retry-after': String(wait) },
      });
    }
  });
}

/** The authenticated principal of a request; routes behind auth always have one. */
export function principalOf(request: FastifyRequest): NonNullable<FastifyRequest['principal']> {
  if (!request.principal) throw new ApiError('unauthorized', 'Authentication is required.');
  return request.principal;
}
