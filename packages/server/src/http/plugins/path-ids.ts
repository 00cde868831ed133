import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

/**
 * An id in the path that the database could not even hold names nothing: a NUL
 * character, which PostgreSQL's text refuses (the lookup failed as a 500), is
 * `404 not_found` without a lookup, as any other id that names nothing is.
 * Set on the routes with a path parameter only.
 */
export function registerPathIds(app: FastifyInstance): void {
  const check = (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) => {
    for (const value of Object.values(request.params as Record<string, string>)) {
      if (value.includes('\0')) {
        done(new ApiError('not_found', 'No such id: it holds a NUL character.'));
        return;
      }
    }
    done();
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.includes('/:')) return;
    route.preValidation = [route.preValidation ?? [], check].flat() as never;
  });
}
