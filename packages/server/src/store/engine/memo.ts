/** Entries kept at most; when full the memo starts over (each fact is found again once). */
const MAX_ENTRIES = 50_000;

/**
 * Facts that never change once committed (which account holds a number, which
 * conversation is the direct thread of two numbers), remembered for the life of a
 * store so the hot paths skip their queries. Bounded: an account with more
 * threads than fit only looks some of them up again.
 */
export class Memo {
  readonly #entries = new Map<string, unknown>();

  get(key: string): unknown {
    return this.#entries.get(key);
  }

  set(key: string, value: unknown): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, value);
  }
}
