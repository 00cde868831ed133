import type { Json } from './openapi-schemas.ts';

/** What about an operation decides which failures it can answer. */
export interface OperationTraits {
  method: string;
  /** Looks a resource up by a path id (`/contacts/{id}`). */
  hasPathParams: boolean;
  /** Takes path, query or body input that is validated. */
  hasInput: boolean;
  /** Accepts a request body (a route with a `body` schema, even one of no fields). */
  hasBody: boolean;
  /** Answers without an API key (`security: []`). */
  isPublic: boolean;
  /** Error statuses the route declares itself beyond these rules (`404` for the sandbox). */
  declared: string[];
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The failures of the API, each with the `error.type` values it carries (README, "Errors"). */
const FAILURES: Record<string, { name: string; description: string; headers?: Json }> = {
  '400': {
    name: 'BadRequest',
    description:
      '`invalid_request`: the body is not valid JSON or not an object, the `Content-Type` is missing or not `application/json`, the body is over 256 KiB, or the URL or headers are malformed.',
  },
  '401': {
    name: 'Unauthorized',
    description:
      '`unauthorized`: the API key is missing, malformed, unknown or revoked. Checked before anything else, so an unknown route answers this too.',
    headers: { 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') },
  },
  '403': {
    name: 'Forbidden',
    description:
      "`unauthorized`: a provider's callback whose signature does not verify with its connection (Twilio's `X-Twilio-Signature`; Telnyx's Ed25519 signature, or a timestamp over 300 s old). Nothing changed.",
  },
  '404': {
    name: 'NotFound',
    description:
      "`not_found`: no such resource in this key's account and mode (test and live are separate worlds), or a route this key cannot use.",
  },
  '409': {
    name: 'Conflict',
    description:
      '`idempotency_conflict`: this `Idempotency-Key` was used within 24 hours with another request; nothing was done.',
  },
  '415': {
    name: 'UnsupportedMediaType',
    description:
      'The request body has a `Content-Encoding` the API does not decode; send it uncompressed. Nothing was done.',
  },
  '422': {
    name: 'UnprocessableContent',
    description:
      '`validation_error`: a field, parameter or the `Idempotency-Key` is invalid; `param` names it. `recipient_opted_out`: the recipient texted STOP. Nothing was done.',
  },
  '429': {
    name: 'TooManyRequests',
    description:
      '`rate_limited`: this API key is over its rate (a token bucket per key); retry after `Retry-After` seconds.',
    headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  },
  '500': {
    name: 'InternalError',
    description:
      '`internal_error`: something failed on the server; retrying is safe with an `Idempotency-Key`.',
  },
  '503': {
    name: 'ServiceUnavailable',
    description:
      '`service_unavailable`: the server is shutting down or its store does not answer; retry, on another instance if there is one.',
  },
};

/** The error statuses an operation can answer, in order. */
export function errorStatuses(op: OperationTraits): string[] {
  // A public POST (a provider's callback) takes no Idempotency-Key.
  const post = op.method === 'POST' && !op.isPublic;
  const statuses = new Set(['400', '500', '503', ...op.declared]);
  if (!op.isPublic) ['401', '429'].forEach((s) => statuses.add(s));
  if (op.hasPathParams) statuses.add('404');
  if (post) statuses.add('409');
  if (op.hasBody) statuses.add('415');
  // A POST's Idempotency-Key is input too: a malformed one is a 422 naming it.
  if (op.hasInput || post) statuses.add('422');
  return [...statuses].sort();
}

/** `{status: $ref}` for each error status of an operation. */
export function errorResponses(op: OperationTraits): Json {
  return Object.fromEntries(
    errorStatuses(op).map((status) => {
      const failure = FAILURES[status];
      if (!failure) throw new Error(`No description of the error status ${status}.`);
      return [status, ref('responses', failure.name)];
    }),
  );
}

/** The headers of a successful answer: its request id, and for a key's POST the replay marker. */
export function successHeaders(idempotent: boolean): Json {
  return {
    'request-id': ref('headers', 'RequestId'),
    ...(idempotent ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}),
  };
}

/**
 * The shared parts of every operation: `components.responses` (every failure in the
 * error shape, with its request id), `components.headers` and `components.parameters`.
 * Only the failures some operation answers are listed, so none is left unused.
 */
export function sharedComponents(used: Set<string>): {
  responses: Json;
  headers: Json;
  parameters: Json;
} {
  const responses: Json = {};
  for (const [status, failure] of Object.entries(FAILURES)) {
    if (!used.has(status)) continue;
    responses[failure.name] = {
      description: failure.description,
      headers: { 'request-id': ref('headers', 'RequestId'), ...failure.headers },
      content: { 'application/json': { schema: ref('schemas', 'Error') } },
    };
  }
  return {
    responses,
    headers: {
      RequestId: {
        description:
          'The id of this request (`req_…`), on every response; quote it when asking about a request. A replay has its own id.',
        required: true,
        schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' },
      },
      IdempotentReplayed: {
        description:
          '`true` when this answer replays the first response given to the same `Idempotency-Key`.',
        schema: { type: 'string', enum: ['true'] },
      },
      RetryAfter: {
        description: 'Whole seconds to wait before retrying.',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
      WwwAuthenticate: {
        description:
          'The scheme the API asks for: `Bearer realm="Switchboard"`, with `error="invalid_token"` when a key was sent and refused.',
        required: true,
        schema: { type: 'string' },
      },
    },
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes a retried POST safe: within 24 hours, a repeat with the same key and body replays the first answer (status and body) and does nothing; the same key with another request is `409`.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      },
    },
  };
}
