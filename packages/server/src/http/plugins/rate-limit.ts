/**
 * A token bucket per API key: `rate` tokens a second, holding at most
 * `2 x rate`, so short bursts pass and a sustained excess is refused.
 * Buckets live in this process; with several instances each enforces its share.
 */
export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(ratePerSecond: number) {
    this.#rate = ratePerSecond;
    this.#burst = ratePerSecond * 2;
  }

  /** Takes one token for `key`; returns 0 when allowed, else whole seconds to wait. */
  take(key: string, now: number): number {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.#burst, at: now };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#rate);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate));
  }
}
