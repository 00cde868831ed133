// Typed errors of the API client. The class follows the stable `error.type` of the answer (spec 7),
// and the HTTP status only when the body carries no type this SDK knows (a proxy's HTML page, a
// type added after this release), so callers branch with `instanceof` instead of parsing strings.

/** What an error knows about the failed request, besides its message. */
export interface SwitchboardErrorInit {
  /** The HTTP status; absent when no answer arrived. */
  status?: number;
  /** The API's `error.type`, or a type named by the SDK (`connection_error`, `timeout`). */
  type: string;
  /** The field that failed validation (`error.param`). */
  param?: string;
  /** The `request-id` header of the answer, to quote when asking for support. */
  requestId?: string;
  /** The answer's body: parsed JSON when it was JSON, else its text. */
  raw?: unknown;
  /** The answer's headers. */
  headers?: Headers;
  /** The underlying failure (network error, abort reason). */
  cause?: unknown;
}

/** Every error the client raises for a request that did not succeed; narrow with its subclasses. */
export class SwitchboardError extends Error {
  override readonly name: string = 'SwitchboardError';
  /** The HTTP status, or `undefined` when no answer arrived. */
  readonly status: number | undefined;
  /** Stable, machine-readable: branch on this or on the subclass, never on `message`. */
  readonly type: string;
  /** The field that failed validation, for 422 answers. */
  readonly param: string | undefined;
  /** The `request-id` response header. */
  readonly requestId: string | undefined;
  /** The response body as received (parsed JSON or text). */
  readonly raw: unknown;
  /** The response headers, when an answer arrived. */
  readonly headers: Headers | undefined;

  constructor(message: string, init: SwitchboardErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.type = init.type;
    this.param = init.param;
    this.requestId = init.requestId;
    this.raw = init.raw;
    this.headers = init.headers;
  }
}

/** 400 `invalid_request`: the request itself was malformed (bad JSON, wrong Content-Type). */
export class InvalidRequestError extends SwitchboardError {
  override readonly name: string = 'InvalidRequestError';
}

/** 401 `unauthorized`: the API key is missing, malformed or revoked. */
export class AuthenticationError extends SwitchboardError {
  override readonly name: string = 'AuthenticationError';
}

/** 404 `not_found`: no such id on this account and mode (test and live are separate). */
export class NotFoundError extends SwitchboardError {
  override readonly name: string = 'NotFoundError';
}

/** 409 `idempotency_conflict`: the Idempotency-Key was already used with another request body. */
export class IdempotencyConflictError extends SwitchboardError {
  override readonly name: string = 'IdempotencyConflictError';
}

/** 422 `validation_error`: a well-formed request that breaks a rule; `param` names the field. */
export class ValidationError extends SwitchboardError {
  override readonly name: string = 'ValidationError';
}

/** 422 `recipient_opted_out`: the recipient replied STOP, so nothing was sent or billed. */
export class RecipientOptedOutError extends SwitchboardError {
  override readonly name: string = 'RecipientOptedOutError';
}

/** 429 `rate_limited`: too many requests for this key; `retryAfter` says how long to wait. */
export class RateLimitError extends SwitchboardError {
  override readonly name: string = 'RateLimitError';
  /** Seconds the server asked to wait (`Retry-After`), or `null` when it did not say. */
  readonly retryAfter: number | null;

  constructor(message: string, init: SwitchboardErrorInit) {
    super(message, init);
    this.retryAfter = parseRetryAfter(init.headers?.get('retry-after'));
  }
}

/** 5xx: a fault on the service side; the client already retried it `maxRetries` times. */
export class ApiServerError extends SwitchboardError {
  override readonly name: string = 'ApiServerError';
}

/** No answer arrived: the connection was refused, reset or dropped. Retried like a 5xx. */
export class ConnectionError extends SwitchboardError {
  override readonly name: string = 'ConnectionError';
}

/** No answer arrived within `timeoutMs` on any attempt; a kind of {@link ConnectionError}. */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
}

type ErrorClass = new (message: string, init: SwitchboardErrorInit) => SwitchboardError;

const CLASS_BY_TYPE: Record<string, ErrorClass> = {
  invalid_request: InvalidRequestError,
  unauthorized: AuthenticationError,
  not_found: NotFoundError,
  idempotency_conflict: IdempotencyConflictError,
  validation_error: ValidationError,
  recipient_opted_out: RecipientOptedOutError,
  rate_limited: RateLimitError,
  internal_error: ApiServerError,
  service_unavailable: ApiServerError,
};

// The type each status stands for when the body names none, so `error.type` is always usable.
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  409: 'idempotency_conflict',
  422: 'validation_error',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

function classForStatus(status: number): ErrorClass {
  const type = TYPE_BY_STATUS[status];
  if (type !== undefined) return CLASS_BY_TYPE[type]!;
  return status >= 500 ? ApiServerError : SwitchboardError;
}

/**
 * Seconds to wait from a `Retry-After` value: whole seconds (what this API sends) or an HTTP date
 * (what some proxies send). `null` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

interface ErrorBodyShape {
  error: { type?: unknown; message?: unknown; param?: unknown };
}

function isErrorBody(value: unknown): value is ErrorBodyShape {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { error?: unknown }).error === 'object' &&
    (value as { error?: unknown }).error !== null
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The typed error for a non-2xx answer, from its status, headers and body text. */
export function errorFromResponse(
  status: number,
  headers: Headers,
  text: string,
): SwitchboardError {
  const parsed = text === '' ? undefined : parseJson(text);
  const raw = parsed === undefined ? text : parsed;
  const body = isErrorBody(parsed) ? parsed.error : undefined;
  const bodyType = typeof body?.type === 'string' ? body.type : undefined;
  const type = bodyType ?? TYPE_BY_STATUS[status] ?? 'api_error';
  const message =
    typeof body?.message === 'string' && body.message !== ''
      ? body.message
      : `The API answered ${status} without an error message.`;
  const ErrorType =
    (bodyType !== undefined ? CLASS_BY_TYPE[bodyType] : undefined) ?? classForStatus(status);
  return new ErrorType(message, {
    status,
    type,
    param: typeof body?.param === 'string' ? body.param : undefined,
    requestId: headers.get('request-id') ?? undefined,
    raw,
    headers,
  });
}
