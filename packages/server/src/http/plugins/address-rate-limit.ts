import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { clientAddress } from '../client-address.ts';
import { RateLimiter } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts a request without a valid API key or session against its client
     * address; throws `rate_limited` when the address is over its limit.
     */
    limitUnauthenticated(request: FastifyRequest): void;
  }
}

/**
 * Whether the request's key or session is checked on the way (auth.ts for `/v1`,
 * session-auth.ts for the softphone API's own routes): such a request is counted
 * only when that check fails, so valid credentials are never limited by address.
 */
function credentialsChecked(request: FastifyRequest): boolean {
  if (request.routeOptions.config.public) return false;
  if (request.url.startsWith('/v1')) return true;
  return request.url.startsWith('/app/api/') && !request.is404;
}

/**
 * The rate limit of requests without a valid API key or softphone session: a
 * token bucket per client address (SWITCHBOARD_UNAUTHENTICATED_RATE_LIMIT a second,
 * burst twice that), answering `429 rate_limited` with `Retry-After`. Requests with
 * a valid key keep their per-key limit (auth.ts) and nothing else. Public routes
 * (sign-in, health, the web app's files) are counted before any work; requests
 * whose key or session fails, when it fails.
 */
export function registerAddressRateLimit(app: FastifyInstance): void {
  const { config, clock } = app.deps;
  const rate = config.unauthenticatedRateLimit;
  const limiter = rate > 0 ? new RateLimiter(rate) : null;

  app.decorate('limitUnauthenticated', (request: FastifyRequest) => {
    if (!limiter) return;
    const wait = limiter.take(clientAddress(request.socket.remoteAddress), clock.now());
    if (wait > 0) {
      throw new ApiError(
        'rate_limited',
        'Too many requests without a valid API key from this address; slow down.',
        { headers: { 'retry-after': String(wait) } },
      );
    }
  });

  app.addHook('onRequest', (request, _reply, done) => {
    if (!limiter || credentialsChecked(request)) {
      done();
      return;
    }
    // A key this process has already found valid is keyed traffic, even here.
    if (request.server.apiKeys.known(request.headers.authorization)) {
      done();
      return;
    }
    try {
      app.limitUnauthenticated(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}
