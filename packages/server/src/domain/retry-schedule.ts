// The webhook retry policy of docs/behaviour.md#retry-schedule, as pure functions of
// the attempt count, the time and a random source, so the delivery worker stays
// a thin loop and every rule here is tested on fixed numbers.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The wait before each attempt, measured from the previous attempt: index 0 is
 * the first attempt (immediate), index 9 the last retry. This is the schedule
 * Standard Webhooks recommends and adds up to about 3 days and 3 hours.
 */
export const RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
]);

/** Attempts made for one delivery before it is marked failed: the first one and nine retries. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** Each wait is stretched or shrunk by up to this fraction, so endpoints that failed together do not retry in lockstep. */
export const RETRY_JITTER = 0.1;

/** The longest wait a `Retry-After` can impose; beyond a day the schedule's own pace is kept. */
export const MAX_RETRY_AFTER_MS = DAY;

/** An endpoint whose deliveries have all failed for this long is disabled. */
export const ENDPOINT_DISABLE_AFTER_MS = 5 * DAY;

/** Only these answers ask for a pause deliberately; a `Retry-After` elsewhere is ignored. */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Why an attempt produced no HTTP status (the connection or the request failed first). */
export type AttemptError = 'timeout' | 'refused' | 'dns' | 'tls' | 'ssrf' | 'other';

/** What the worker does after an attempt: stop, try again later, or disable the endpoint. */
export type AttemptOutcome = 'success' | 'retry' | 'disable_endpoint';

/** Input of {@link nextAttemptAt}; times are epoch milliseconds. */
export interface NextAttemptInput {
  /** Attempts already made for this delivery (0 before the first one). */
  attempt: number;
  now: number;
  /** A uniform random number in [0, 1); 0.5 means no jitter. */
  random: () => number;
  /** The wait the endpoint asked for, from {@link retryAfterDelay}. */
  retryAfterMs?: number | null;
}

/**
 * When to make the next attempt, as epoch milliseconds, or null once all
 * {@link MAX_ATTEMPTS} attempts are spent and the delivery has failed.
 * A `Retry-After` wins only when it asks for more time than the jittered schedule.
 */
export function nextAttemptAt({
  attempt,
  now,
  random,
  retryAfterMs,
}: NextAttemptInput): number | null {
  if (!Number.isInteger(attempt) || attempt < 0) {
    throw new RangeError(`attempt must be a non-negative integer, got ${attempt}`);
  }
  const base = RETRY_DELAYS_MS[attempt];
  if (base === undefined) return null;
  // random() is in [0, 1); mapping it to [-1, 1) keeps the spread symmetric around the schedule.
  const scheduled = Math.round(base * (1 + (random() * 2 - 1) * RETRY_JITTER));
  const asked =
    retryAfterMs != null && Number.isFinite(retryAfterMs) && retryAfterMs > 0
      ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)
      : 0;
  return now + Math.max(scheduled, asked);
}

// delta-seconds (RFC 9110 §10.2.3) is digits only; "1.5" or "-3" are not valid and are ignored.
const DELTA_SECONDS = /^\d+$/;
// The three HTTP-date forms: IMF-fixdate, obsolete RFC 850 and asctime. Date.parse
// accepts far more than these, so the shape is checked before trusting it.
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * The wait a `Retry-After` value asks for, in milliseconds from `now` (0 for a
 * date in the past), or null when it is absent or malformed.
 */
export function parseRetryAfter(
  headerValue: string | readonly string[] | null | undefined,
  now: number,
): number | null {
  const raw = typeof headerValue === 'string' ? headerValue : headerValue?.[0];
  if (raw === undefined) return null;
  const value = raw.trim();
  if (DELTA_SECONDS.test(value)) {
    const ms = Number(value) * SECOND;
    return Number.isFinite(ms) ? ms : null;
  }
  if (HTTP_DATE.test(value)) {
    // asctime dates carry no zone; HTTP says they are UTC, Date.parse would read them as local time.
    const at = Date.parse(value.endsWith('GMT') ? value : `${value} GMT`);
    return Number.isNaN(at) ? null : Math.max(0, at - now);
  }
  return null;
}

/**
 * The `Retry-After` wait to pass to {@link nextAttemptAt} for an answer: only a
 * 429 or 503 may slow the schedule down (docs/behaviour.md#retry-schedule).
 */
export function retryAfterDelay(
  status: number,
  headerValue: string | readonly string[] | null | undefined,
  now: number,
): number | null {
  return RETRY_AFTER_STATUSES.has(status) ? parseRetryAfter(headerValue, now) : null;
}

/**
 * What one attempt's result means: any 2xx is success, `410 Gone` disables the
 * endpoint, and everything else (redirects, other statuses, network failures) is retried.
 */
export function classifyAttempt({
  status,
  error,
}: {
  status?: number;
  error?: AttemptError;
}): AttemptOutcome {
  // A blocked address (ssrf) is retried, not fatal: DNS may point back to a public
  // address later, and the five-day rule still disables an endpoint that never recovers.
  if (error !== undefined || status === undefined) return 'retry';
  if (status >= 200 && status <= 299) return 'success';
  if (status === 410) return 'disable_endpoint';
  // Redirects land here too: a signed body is never replayed to a URL the customer did not register.
  return 'retry';
}

/**
 * Whether an endpoint is to be disabled because every delivery to it has failed
 * since `firstFailureAt` (epoch ms, null while it has not been failing) for five days.
 */
export function shouldDisableEndpoint(firstFailureAt: number | null, now: number): boolean {
  return firstFailureAt !== null && now - firstFailureAt >= ENDPOINT_DISABLE_AFTER_MS;
}
