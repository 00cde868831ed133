import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

const JSON_TYPE = /^application\/json\s*(;|$)/i;

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

/**
 * Requires `Content-Type: application/json` on every request that carries a
 * body or whose route expects one, before any parsing, so a missing or wrong
 * type is our `400 invalid_request` rather than a framework default.
 */
export function registerContentTypeCheck(app: FastifyInstance): void {
  app.addHook('preParsing', (request: FastifyRequest, _reply, payload, done) => {
    const expectsBody = request.routeOptions.schema?.body !== undefined;
    const type = request.headers['content-type'];
    if ((expectsBody || hasBody(request)) && (!type || !JSON_TYPE.test(type))) {
      done(
        new ApiError(
          'invalid_request',
          type
            ? `Unsupported Content-Type '${type}'; send application/json.`
            : 'Missing Content-Type; send application/json.',
        ),
      );
      return;
    }
    done(null, payload);
  });
}
