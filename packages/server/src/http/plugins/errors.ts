import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, typeInWords } from '../../domain/errors.ts';
import { confirmKey } from './auth.ts';

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/to/1` → `to[1]`, `/participants/0/phone` → `participants[0].phone`. */
function pathToParam(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

/** `string` → `a string`; Ajv's own words for a list of types (`string,null`) are split first. */
function typeNames(types: unknown[]): string {
  const names = types.flatMap((type) => String(type).split(','));
  return [...new Set(names)].map(typeInWords).join(' or ');
}

/**
 * Ajv reports a value that matches no branch of a union (`to`: one number or an array
 * of them; `outcome`: one of two words) as each branch's failure, then `anyOf`. The
 * first branch's failure says little about a value meant for another (`to: []` is not
 * "not a string"), so the one reported is: a failure inside the value, else one of a
 * branch whose type the value has (too few items), else the words the union allows,
 * else the types it allows.
 */
function unionViolation(errors: AjvError[]): AjvError | undefined {
  const anyOf = errors.findIndex((error) => error.keyword === 'anyOf');
  if (anyOf === -1) return errors[0];
  const union = errors[anyOf]!;
  const branches = errors
    .slice(0, anyOf)
    .filter((error) => error.instancePath.startsWith(union.instancePath));
  const inside = branches.find((error) => error.instancePath !== union.instancePath);
  const telling = branches.find((error) => error.keyword !== 'type' && error.keyword !== 'const');
  if (inside ?? telling) return inside ?? telling;
  const words = branches.filter((error) => error.keyword === 'const');
  if (words.length > 0) {
    const allowedValues = words.map((error) => error.params.allowedValue);
    return { ...union, keyword: 'enum', params: { allowedValues } };
  }
  const types = branches.map((error) => error.params.type);
  return { ...union, keyword: 'type', params: { type: types.join(',') } };
}

const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  uri: 'an absolute URL',
  'date-time': 'an ISO 8601 date and time, such as 2026-01-31T09:30:00Z',
};

const plural = (n: unknown, one: string): string => `${String(n)} ${one}${n === 1 ? '' : 's'}`;

/** What a value must be, in words for people (Ajv's own: "must NOT have fewer than 1 items"). */
function describeViolation(error: AjvError): string {
  const { limit, type, allowedValues } = error.params;
  switch (error.keyword) {
    case 'type':
      return `must be ${typeNames([type])}`;
    case 'minItems':
      return `must list at least ${plural(limit, 'item')}`;
    case 'maxItems':
      return `must list at most ${plural(limit, 'item')}`;
    case 'minLength':
      return `must be at least ${plural(limit, 'character')} long`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character')} long`;
    case 'format':
      return `must be ${FORMAT_NAMES[String(error.params.format)] ?? `in the format ${String(error.params.format)}`}`;
    case 'enum':
      return `must be one of ${(allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Turns the first schema violation into a `422 validation_error` naming its field. */
export function validationToApiError(errors: AjvError[], context: string): ApiError {
  const first = unionViolation(errors);
  if (!first) return new ApiError('validation_error', 'The request is invalid.');
  const base = pathToParam(first.instancePath);
  if (first.keyword === 'additionalProperties') {
    const field = String(first.params.additionalProperty);
    const param = base ? `${base}.${field}` : field;
    return new ApiError('validation_error', `Unknown field '${param}'.`, { param });
  }
  if (first.keyword === 'required') {
    const field = String(first.params.missingProperty);
    const param = base ? `${base}.${field}` : field;
    return new ApiError('validation_error', `Missing required field '${param}'.`, { param });
  }
  if (!base && context === 'body' && first.keyword === 'type') {
    return new ApiError('invalid_request', 'The request body must be a JSON object.');
  }
  const param = base || context;
  return new ApiError('validation_error', `${param} ${describeViolation(first)}.`, { param });
}

/** Fastify's own client errors (parsing, content type, size) that are ours to word as 400. */
function isRequestFormatError(error: FastifyError): boolean {
  return (
    (typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_')) ||
    error instanceof SyntaxError ||
    error.statusCode === 400 ||
    error.statusCode === 413 ||
    error.statusCode === 415
  );
}

function describeFormatError(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Type must be application/json.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; send a JSON object.';
    default:
      return 'The request body is not valid JSON.';
  }
}

/** What a `401` of the public API asks for: a bearer token, the API key. */
const API_KEY_CHALLENGE = 'Bearer realm="Switchboard"';

/** Sends an ApiError as `{error: {type, message, param?}}` with its headers. */
export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  // The public API names the scheme it wants (RFC 6750); the softphone's session has none.
  if (error.type === 'unauthorized' && reply.request.url.startsWith('/v1/')) {
    // A key that was sent and refused is an invalid token (RFC 6750, section 3.1).
    const sent = reply.request.headers.authorization !== undefined;
    reply.header(
      'www-authenticate',
      sent ? `${API_KEY_CHALLENGE}, error="invalid_token"` : API_KEY_CHALLENGE,
    );
  }
  return reply.code(error.status).headers(error.headers).send(error.toBody());
}

/**
 * One error handler for the whole app: ApiErrors as they are, schema failures
 * as 422 with `param`, parser and content-type failures as 400, and anything
 * else as a logged 500 whose message never reaches the client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A request whose key came from the cache may have failed before any command checked
    // it: a key revoked meanwhile answers 401, whatever else was wrong.
    if (!(error instanceof ApiError && error.type === 'unauthorized')) {
      try {
        await confirmKey(request);
      } catch (refused) {
        if (refused instanceof ApiError) return sendApiError(reply, refused);
        throw refused;
      }
    }
    if (error instanceof ApiError) return sendApiError(reply, error);
    if (error.validation) {
      return sendApiError(
        reply,
        validationToApiError(error.validation as AjvError[], error.validationContext ?? 'body'),
      );
    }
    if (isRequestFormatError(error)) {
      return sendApiError(reply, new ApiError('invalid_request', describeFormatError(error)));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendApiError(
      reply,
      new ApiError('internal_error', 'Something went wrong on our side. Retry the request.'),
    );
  });
}

/**
 * Errors Fastify raises before a request reaches a route (a malformed
 * percent-encoding). Fastify would answer them with its own body and no request
 * id; ours is the usual `400 invalid_request`. No hook runs for them, hence the
 * explicit header. (The router has no limit of its own on a path segment's length:
 * see app.ts.)
 */
export function sendFrameworkError(
  _error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('request-id', request.id);
  sendApiError(
    reply,
    new ApiError('invalid_request', 'The URL is not valid; check its percent-encoding.'),
  );
}

/**
 * Answers requests Node's HTTP parser rejects (headers too large, malformed
 * HTTP) or that took too long to arrive (408, the timeouts of
 * connection-limits.ts) with the API's error body instead of Fastify's default,
 * then closes the connection. There may be no Fastify request yet, so the
 * response is written to the socket directly.
 */
export function clientErrorHandler(newRequestId: () => string) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // An answer already under way would be corrupted by a second one.
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (socket.writable && !answering?.headersSent) {
      const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const message =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? 'The request headers are too large.'
          : timedOut
            ? 'The request took too long to arrive.'
            : 'The request is not valid HTTP.';
      const body = JSON.stringify(new ApiError('invalid_request', message).toBody());
      socket.write(
        [
          timedOut ? 'HTTP/1.1 408 Request Timeout' : 'HTTP/1.1 400 Bad Request',
          'Content-Type: application/json; charset=utf-8',
          `Content-Length: ${Buffer.byteLength(body)}`,
          `request-id: ${newRequestId()}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
    }
    socket.destroy(error);
  };
}
