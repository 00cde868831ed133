// Time for the session: a clock and timers it is given (tests pass their own), the token
// bucket that caps submissions per second, and the reconnect backoff.

/** A clock with timers; injected so tests control time and jitter. */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * A token bucket: `ratePerSecond` tokens a second, at most `burst` saved up. A rate of 0
 * or Infinity is no cap.
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(ratePerSecond: number, burst: number, now: () => number) {
    this.#rate = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#now = now;
    this.#tokens = this.#burst;
    this.#at = now();
  }

  get unlimited(): boolean {
    return !(this.#rate > 0 && Number.isFinite(this.#rate));
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) * this.#rate) / 1000);
    this.#at = now;
  }

  /** Takes a token and returns 0, or returns the ms until one is there (taking nothing). */
  take(): number {
    if (this.unlimited) return 0;
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) * 1000) / this.#rate);
  }
}

export interface BackoffOptions {
  /** The delay before the first retry. */
  initialMs: number;
  /** The longest delay. */
  maxMs: number;
  /** Growth per failed attempt. */
  factor: number;
  /** The fraction of each delay drawn at random (0: none; 0.5: between half and all of it). */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialMs: 1_000,
  maxMs: 60_000,
  factor: 2,
  jitter: 0.5,
};

/**
 * The delay before retry number `attempt` (0 for the first): exponential up to the cap,
 * less a random share, so ESMEs cut off together do not all come back at the same instant.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number,
): number {
  const base = Math.min(options.maxMs, options.initialMs * options.factor ** Math.max(0, attempt));
  const jitter = Math.min(1, Math.max(0, options.jitter));
  return Math.round(base * (1 - jitter * random()));
}
