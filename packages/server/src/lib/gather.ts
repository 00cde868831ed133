/**
 * Collects items and hands them over together: `waitMs` after the first one
 * arrived, as soon as there are `maxItems`, or on `flush()`.
 */
export class Gather<T> {
  readonly #submit: (items: T[]) => void;
  readonly #waitMs: number;
  readonly #maxItems: number;
  #items: T[] = [];
  #timer: NodeJS.Timeout | null = null;

  constructor(submit: (items: T[]) => void, options: { waitMs: number; maxItems: number }) {
    this.#submit = submit;
    this.#waitMs = options.waitMs;
    this.#maxItems = options.maxItems;
  }

  add(item: T): void {
    this.#items.push(item);
    if (this.#items.length >= this.#maxItems) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#waitMs);
  }

  /** Hands over what has been collected now, if anything. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#items.length === 0) return;
    const items = this.#items;
    this.#items = [];
    this.#submit(items);
  }
}
