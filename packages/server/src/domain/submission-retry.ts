// When a carrier submission that failed for a transient reason (the connection down, no
// answer in time, the carrier busy) is tried again, and when it is given up as
// `unreachable`. Apart from the webhook schedule (retry-schedule.ts): a text loses its
// worth within hours, so the waits are shorter and end after about 1 h 40 min.

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The wait after each failed attempt: index 0 follows the first attempt. */
export const SUBMISSION_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  1 * SECOND,
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  60 * MINUTE,
]);

/**
 * How long a live send waits for its carrier connection to bind (CarrierUnavailable) before
 * it fails as `unreachable`, unless SWITCHBOARD_LIVE_QUEUE_HOURS says otherwise.
 */
export const DEFAULT_QUEUE_EXPIRY_MS = 24 * 60 * MINUTE;

/** The wait before a send whose connection is not bound is tried again: short, as a bind is. */
export const UNAVAILABLE_RETRY_MS = 2 * SECOND;

/**
 * When a submission whose connection is unavailable is tried again (epoch ms), or null once
 * it has waited past `expiryMs` since its message was accepted. No attempt is spent.
 */
export function nextWaitingAttemptAt(
  acceptedAt: number,
  now: number,
  expiryMs: number,
  random: () => number,
): number | null {
  if (now - acceptedAt >= expiryMs) return null;
  const wait = Math.round(
    UNAVAILABLE_RETRY_MS * (1 + (random() * 2 - 1) * SUBMISSION_RETRY_JITTER),
  );
  return Math.min(now + wait, acceptedAt + expiryMs);
}

/** Attempts made before the recipient fails as `unreachable`: the first and seven retries. */
export const SUBMISSION_MAX_ATTEMPTS = SUBMISSION_RETRY_DELAYS_MS.length + 1;

/**
 * Each wait is stretched or shrunk by up to this fraction, so the submissions of a carrier
 * outage, which failed together, do not all return in the same instant when it is back.
 */
export const SUBMISSION_RETRY_JITTER = 0.2;

/**
 * When to submit again after the `attempts`-th attempt failed transiently (epoch ms), or
 * null when the attempts are spent and the recipient fails as `unreachable`.
 * `random` is uniform in [0, 1); 0.5 means no jitter.
 */
export function nextSubmissionAttemptAt(
  attempts: number,
  now: number,
  random: () => number,
): number | null {
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new RangeError(`attempts must be a positive integer, got ${attempts}`);
  }
  const base = SUBMISSION_RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  return now + Math.round(base * (1 + (random() * 2 - 1) * SUBMISSION_RETRY_JITTER));
}
