import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Whether the request sends a body: a non-zero length, or one sent in chunks. */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

/** A route's body schema, as far as these rules look at it. */
interface BodySchema {
  required?: string[];
}

/** A body the route cannot do without: its schema has a required field. */
function needsBody(schema: BodySchema | undefined): boolean {
  return (schema?.required?.length ?? 0) > 0;
}

/**
 * The request body's format, checked before any parsing, so a mistake is our
 * `400 invalid_request` rather than a framework default:
 * - `Content-Type: application/json` is required on every request that carries a
 *   body, or whose route cannot do without one;
 * - an empty body is no body, whatever its `Content-Type` says (as Stripe takes it): a
 *   `DELETE` or a bodiless `POST` sent with the header by a client that always sends
 *   it is not refused as empty JSON;
 * - a route whose body has no required field (`POST …/test`, `…/rotate_secret`) may
 *   be called without one, and is then validated as `{}`.
 */
export function registerContentTypeCheck(app: FastifyInstance): void {
  app.addHook('preParsing', (request: FastifyRequest, _reply, payload, done) => {
    if (request.routeOptions.config.providerBody) return done(null, payload);
    const type = request.headers['content-type'];
    const sent = hasBody(request);
    if (
      (sent || needsBody(request.routeOptions.schema?.body as BodySchema | undefined)) &&
      (!type || !JSON_TYPE.test(type))
    ) {
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
    // Fastify picks the parser from the header after this hook: without it, nothing is parsed.
    if (!sent && type !== undefined) delete request.headers['content-type'];
    done(null, payload);
  });
  // Set on the routes it concerns only: the hot routes' bodies are required.
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema?.body as BodySchema | undefined;
    if (schema === undefined || needsBody(schema)) return;
    const optionalBody = (request: FastifyRequest, _reply: unknown, done: () => void) => {
      // Only a missing body: a JSON `null` is a body, and not an object.
      if (request.body === undefined) request.body = {};
      done();
    };
    route.preValidation = [route.preValidation ?? [], optionalBody].flat() as never;
  });
}
