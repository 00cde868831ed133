/** Counts events of the last minute in one-second buckets: what the dashboard shows as a rate. */
export class MinuteCounter {
  readonly #buckets = new Array<number>(60).fill(0);
  readonly #seconds = new Array<number>(60).fill(-1);

  add(now: number): void {
    const second = Math.floor(now / 1000);
    const i = second % 60;
    if (this.#seconds[i] !== second) {
      this.#seconds[i] = second;
      this.#buckets[i] = 0;
    }
    this.#buckets[i]!++;
  }

  /** Events in the 60 seconds up to `now`. */
  count(now: number): number {
    const second = Math.floor(now / 1000);
    let total = 0;
    for (let i = 0; i < 60; i++) {
      if (second - this.#seconds[i]! < 60) total += this.#buckets[i]!;
    }
    return total;
  }
}
