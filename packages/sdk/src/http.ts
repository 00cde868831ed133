// The transport under every resource: one logical call is one or more HTTP attempts. Retries
// follow spec section 7: 429 after its Retry-After, 5xx and lost connections after a capped,
// fully jittered exponential backoff, and never 400, 401, 404, 409 or 422. A POST carries one
// Idempotency-Key for all its attempts, so the server replays rather than repeats a retried write.

import {
  ConnectionError,
  SwitchboardError,
  TimeoutError,
  errorFromResponse,
  parseRetryAfter,
} from './errors.ts';

/** The version this SDK reports in its User-Agent. */
export const SDK_VERSION = '0.1.0';

/** A longer Retry-After than this is not waited out: the call fails with the RateLimitError. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** The `fetch` the client calls; the global one by default, or any compatible function. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Per-call options, accepted by every resource method as its last argument. */
export interface RequestOptions {
  /** Aborts the call, attempts and waits alike; the call then rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
  /** Overrides the client's retry budget for this call (0 means one attempt only). */
  maxRetries?: number;
}

/** Per-call options of calls that POST: they may also name their Idempotency-Key. */
export interface WriteRequestOptions extends RequestOptions {
  /**
   * Sent on every attempt of this call; generated when absent. Reuse one across your own
   * retries (same body, within 24 hours) to get the first answer back instead of a second write.
   */
  idempotencyKey?: string;
}

/** The settled configuration of a transport (the client fills in the defaults). */
export interface TransportConfig {
  apiKey: string;
  /** Ends in the version segment, e.g. `https://api.example.com/v1`, with no trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  /** First backoff ceiling; the ceiling doubles per retry up to `retryMaxDelayMs`. */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  fetch: FetchLike;
  userAgent: string;
}

/** One API call as a resource describes it. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Relative to the base URL, starting with `/`; ids already encoded with {@link pathSegment}. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON-encoded when present; absent means no body and no Content-Type. */
  body?: unknown;
}

type Attempt = { ok: true; value: unknown } | { ok: false; error: SwitchboardError };

/**
 * An id as one URL path segment. Encoding keeps `/`, `?` and `#` inside the segment; `.` and `..`
 * are refused because URL parsing would resolve them and reach another route.
 */
export function pathSegment(id: string): string {
  if (typeof id !== 'string' || id === '' || id === '.' || id === '..') {
    throw new TypeError(`Expected an id, got ${JSON.stringify(id)}.`);
  }
  return encodeURIComponent(id);
}

/**
 * The wait before retry number `attempt + 1`: full jitter, uniform in
 * [0, min(cap, base * 2^attempt)), so clients that failed together do not come back together.
 */
export function backoffDelayMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  return random() * Math.min(capMs, baseMs * 2 ** attempt);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Sends API calls with authentication, timeouts and retries. */
export class Transport {
  readonly #config: TransportConfig;

  constructor(config: TransportConfig) {
    this.#config = config;
  }

  /** One logical call: resolves with the parsed JSON body, or rejects with a typed error. */
  async request<T>(request: ApiRequest, options: WriteRequestOptions = {}): Promise<T> {
    const { signal } = options;
    const maxRetries = options.maxRetries ?? this.#config.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.#config.timeoutMs;
    // Checked here too because per-call values bypass the client's checks; NaN would never stop.
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new RangeError('maxRetries must be a non-negative integer.');
    }
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError('timeoutMs must be a positive number.');
    }
    const url = this.#url(request);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#config.apiKey}`,
      Accept: 'application/json',
      'User-Agent': this.#config.userAgent,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['Content-Type'] = 'application/json';
    }
    // Made once, outside the loop: every attempt of this call must carry the same key.
    if (request.method === 'POST') {
      headers['Idempotency-Key'] = options.idempotencyKey ?? crypto.randomUUID();
    }
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const result = await this.#attempt(url, request.method, headers, body, timeoutMs, signal);
      if (result.ok) return result.value as T;
      const delayMs = this.#retryDelayMs(result.error, attempt);
      if (delayMs === null || attempt >= maxRetries) throw result.error;
      await sleep(delayMs, signal);
    }
  }

  #url(request: ApiRequest): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const search = query.toString();
    return `${this.#config.baseUrl}${request.path}${search === '' ? '' : `?${search}`}`;
  }

  async #attempt(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    // One controller per attempt: a timeout ends this attempt, the caller's signal all of them.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const fetchFn = this.#config.fetch;
    let response: Response;
    let text: string;
    try {
      response = await fetchFn(url, { method, headers, body, signal: controller.signal });
      // Read under the same timer: stalling mid-body is as silent as never answering.
      text = await response.text();
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        return {
          ok: false,
          error: new TimeoutError(`No answer from ${method} ${url} within ${timeoutMs} ms.`, {
            type: 'timeout',
            cause,
          }),
        };
      }
      const reason = cause instanceof Error ? cause.message : String(cause);
      return {
        ok: false,
        error: new ConnectionError(`Could not reach ${method} ${url}: ${reason}`, {
          type: 'connection_error',
          cause,
        }),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (!response.ok) {
      return { ok: false, error: errorFromResponse(response.status, response.headers, text) };
    }
    try {
      return { ok: true, value: text === '' ? undefined : (JSON.parse(text) as unknown) };
    } catch (cause) {
      return {
        ok: false,
        error: new SwitchboardError(
          `The API answered ${response.status} with a body that is not JSON.`,
          {
            status: response.status,
            type: 'invalid_response',
            requestId: response.headers.get('request-id') ?? undefined,
            raw: text,
            headers: response.headers,
            cause,
          },
        ),
      };
    }
  }

  /** How long to wait before the next attempt, or `null` when this failure must not be retried. */
  #retryDelayMs(error: SwitchboardError, attempt: number): number | null {
    if (error instanceof ConnectionError) return this.#backoff(attempt);
    const status = error.status ?? 0;
    if (status !== 429 && status < 500) return null;
    const retryAfter = parseRetryAfter(error.headers?.get('retry-after'));
    if (retryAfter === null) return this.#backoff(attempt);
    // Retrying sooner than asked would only be refused again; waiting longer is the caller's call.
    return retryAfter > MAX_RETRY_AFTER_SECONDS ? null : retryAfter * 1000;
  }

  #backoff(attempt: number): number {
    return backoffDelayMs(attempt, this.#config.retryBaseDelayMs, this.#config.retryMaxDelayMs);
  }
}
