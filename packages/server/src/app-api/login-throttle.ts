/**
 * Slows password guessing: after 5 failed sign-ins for one email (or 20 from
 * one address) within 15 minutes, further attempts are refused until the
 * window passes. Kept in memory: each instance throttles on its own.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();
  static readonly WINDOW_MS = 15 * 60 * 1000;
  static readonly PER_EMAIL = 5;
  static readonly PER_ADDRESS = 20;

  #recent(key: string, now: number): number[] {
    const times = (this.#failures.get(key) ?? []).filter((t) => now - t < LoginThrottle.WINDOW_MS);
    if (times.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, times);
    return times;
  }

  /** Seconds to wait before another attempt, or 0 when one is allowed now. */
  retryAfter(email: string, address: string, now: number): number {
    const byEmail = this.#recent(`e:${email.toLowerCase()}`, now);
    const byAddress = this.#recent(`a:${address}`, now);
    const blocked = [
      byEmail.length >= LoginThrottle.PER_EMAIL ? byEmail : null,
      byAddress.length >= LoginThrottle.PER_ADDRESS ? byAddress : null,
    ].filter((t): t is number[] => t !== null);
    if (blocked.length === 0) return 0;
    const oldest = Math.max(...blocked.map((t) => t[0]!));
    return Math.max(1, Math.ceil((oldest + LoginThrottle.WINDOW_MS - now) / 1000));
  }

  /** Counts a failed attempt. */
  fail(email: string, address: string, now: number): void {
    for (const key of [`e:${email.toLowerCase()}`, `a:${address}`]) {
      this.#failures.set(key, [...this.#recent(key, now), now]);
    }
  }

  /** Forgets an email's failures after it signs in. */
  succeed(email: string): void {
    this.#failures.delete(`e:${email.toLowerCase()}`);
  }
}
