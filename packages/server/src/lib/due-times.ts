/**
 * Times something is expected to fall due, earliest first: a binary min-heap, so a
 * worker with thousands of retries scheduled adds one, and finds the next, in a few
 * steps each.
 */
export class DueTimes {
  readonly #heap: number[] = [];

  get size(): number {
    return this.#heap.length;
  }

  /** The earliest time, or Infinity when none is left. */
  next(): number {
    return this.#heap[0] ?? Infinity;
  }

  add(at: number): void {
    const heap = this.#heap;
    heap.push(at);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = at;
  }

  /** Forgets every time at or before `now`: what falls due by then is being looked for. */
  passTo(now: number): void {
    while (this.#heap.length > 0 && this.#heap[0]! <= now) this.#removeFirst();
  }

  #removeFirst(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]! < heap[left]! ? right : left;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
