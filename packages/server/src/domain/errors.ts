/** Every `error.type` the API can answer with, and the HTTP status each one carries. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  validation_error: 422,
  recipient_opted_out: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;

/** A failure the client should see as `{error: {type, message, param?}}`. */
export class ApiError extends Error {
  readonly type: ErrorType;
  readonly param: string | undefined;
  readonly status: number;
  /** Extra response headers, such as `Retry-After` on `rate_limited`. */
  readonly headers: Record<string, string>;

  /**
   * `options.status` overrides the type's own where HTTP has a more precise one
   * (`415` for an `invalid_request` whose Content-Encoding is not accepted).
   */
  constructor(
    type: ErrorType,
    message: string,
    options: { param?: string; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.type = type;
    this.param = options.param;
    this.status = options.status ?? ERROR_STATUS[type];
    this.headers = options.headers ?? {};
  }

  /** The JSON body of the error response. */
  toBody(): { error: { type: ErrorType; message: string; param?: string } } {
    return {
      error: {
        type: this.type,
        message: this.message,
        ...(this.param !== undefined ? { param: this.param } : {}),
      },
    };
  }
}

/** A `422 validation_error` naming the field that failed. */
export function validationError(param: string, message: string): ApiError {
  return new ApiError('validation_error', message, { param });
}

/** A `404 not_found` that does not reveal whether the id exists elsewhere. */
export function notFound(kind: string, id: string): ApiError {
  return new ApiError('not_found', `No such ${kind}: '${id}'.`);
}

/**
 * A JSON type as a validation message says it ("to must be a string."), whichever
 * validator named it: Ajv for the REST API, zod for the MCP tools (`int`).
 */
export function typeInWords(type: string): string {
  return TYPE_WORDS[type] ?? type;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  array: 'an array',
  object: 'an object',
  integer: 'an integer',
  int: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};
