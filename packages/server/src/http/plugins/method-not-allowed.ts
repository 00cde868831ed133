import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

/** The APIs whose paths answer a wrong method with 405: the public one and the softphone's. */
const COVERED = ['/v1/', '/app/api/'];

/** A route's path as a pattern: its static segments as they are, a `:param` as any one segment. */
function patternOf(url: string): RegExp {
  const segments = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * A request with a method its path does not take is `405 method_not_allowed`, with
 * an `Allow` header listing the methods the path does take (RFC 9110, 15.5.6); only a
 * path no route has is `404`. The router knows a path only with its method, so the
 * routes' paths are kept here as patterns and looked at when the router found none.
 * Runs after authentication: without a key, `/v1` still reveals nothing (401).
 */
export function registerMethodNotAllowed(app: FastifyInstance): void {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!COVERED.some((prefix) => route.url.startsWith(prefix))) return;
    const methods = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByUrl.set(route.url, methods);
  });
  // Made once the routes are all known, at the first request that needs them.
  let patterns: { pattern: RegExp; methods: Set<string> }[] | null = null;

  /** The methods `path` takes, sorted, or none when no route has it. */
  const allowedOn = (path: string): string[] => {
    patterns ??= [...methodsByUrl].map(([url, methods]) => ({ pattern: patternOf(url), methods }));
    const allowed = new Set<string>();
    for (const { pattern, methods } of patterns) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    return [...allowed].sort();
  };

  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (!request.is404) {
      done();
      return;
    }
    const path = request.url.split('?', 1)[0]!;
    const allowed = COVERED.some((prefix) => path.startsWith(prefix)) ? allowedOn(path) : [];
    if (allowed.length === 0) {
      done();
      return;
    }
    const list = allowed.join(', ');
    done(
      new ApiError(
        'method_not_allowed',
        `${request.method} is not allowed on ${path}; it takes ${list}.`,
        { headers: { allow: list } },
      ),
    );
  });
}
