/** Buckets kept at most; past it the oldest is dropped (see `take`). */
const MAX_BUCKETS = 100_000;

/**
 * A token bucket per key (an API key, a client address): `rate` tokens a second,
 * holding at most `2 x rate`, so short bursts pass and a sustained excess is refused.
 * Buckets live in this process; with several instances each enforces its share.
 */
export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  /** Time an untouched bucket takes to fill up again; one that full is forgotten. */
  readonly #refillMs: number;
  readonly #maxBuckets: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  #sweptAt = 0;

  constructor(ratePerSecond: number, { maxBuckets = MAX_BUCKETS }: { maxBuckets?: number } = {}) {
    this.#rate = ratePerSecond;
    this.#burst = ratePerSecond * 2;
    this.#refillMs = (this.#burst / this.#rate) * 1000;
    this.#maxBuckets = maxBuckets;
  }

  /** How many keys have a bucket now. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one token for `key`; returns 0 when allowed, else whole seconds to wait. */
  take(key: string, now: number): number {
    // A bucket idle for the refill time is full, as a new one is: dropping it changes
    // nothing. One pass per refill time keeps the map to the keys seen in that time.
    if (now - this.#sweptAt >= this.#refillMs) this.#sweep(now);
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      // Beyond the cap (keys from very many addresses at once) the oldest bucket goes,
      // though it may not be full: memory stays bounded, at the price of a fresh burst.
      if (this.#buckets.size >= this.#maxBuckets) {
        this.#buckets.delete(this.#buckets.keys().next().value!);
      }
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

  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const [key, bucket] of this.#buckets) {
      if (now - bucket.at >= this.#refillMs) this.#buckets.delete(key);
    }
  }
}
