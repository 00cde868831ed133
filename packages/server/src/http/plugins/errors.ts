import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

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

/** Turns the first schema violation into a `422 validation_error` naming its field. */
export function validationToApiError(errors: AjvError[], context: string): ApiError {
  const first = errors[0];
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
  return new ApiError('validation_error', `${param} ${first.message ?? 'is invalid'}.`, { param });
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

/** Sends an ApiError as `{error: {type, message, param?}}` with its headers. */
export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.status).headers(error.headers).send(error.toBody());
}

/**
 * One error handler for the whole app: ApiErrors as they are, schema failures
 * as 422 with `param`, parser and content-type failures as 400, and anything
 * else as a logged 500 whose message never reaches the client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
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
