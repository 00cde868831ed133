import type { ReadStore } from '../store.ts';

/** Entries kept at most; when full the cache starts over (one load per key). */
const MAX_ENTRIES = 10_000;

/**
 * Copies of committed rows, for reads on a hot path, that are never served once
 * the row has changed:
 * - a change in this process publishes `signal` after its commit with the
 *   changed key in its payload (`keyOf`), which drops that entry;
 * - a commit by another process (the CLI, another instance) moves
 *   `store.foreignChanges()`, checked on every read, which drops them all. On
 *   SQLite that is the writer's `PRAGMA data_version` (~1 µs, no table read). On
 *   PostgreSQL it moves on every call: another instance's NOTIFY arrives only
 *   after its commit, too late for "the very next read", so there every read loads.
 * A load that raced a local change is not kept. Only what `load` finds is kept:
 * a missing row is asked for again. Reads of a key while its load runs share that
 * load, unless a change came since it started (one that joined a load that fails
 * loads again by itself): on PostgreSQL, where the copies are
 * dropped every `foreignCheckMs`, each of the webhook worker's attempts that started
 * before the reload of its endpoint had answered read the row again (4,580 reads
 * for 20,000 deliveries to 4 endpoints).
 *
 * `foreignCheckMs` lets a reader trade "the very next read" for fewer checks:
 * other processes' commits are then looked for at most that often (on SQLite the
 * pragma takes the WAL index's lock, ~5 µs; on PostgreSQL every check drops all).
 */
export class CommittedCache<V> {
  readonly #store: ReadStore;
  readonly #signal: string;
  readonly #entries = new Map<string, V>();
  /** Loads running, with the generation and version they started under. */
  readonly #loading = new Map<
    string,
    { generation: number; version: number | null; value: Promise<V | undefined> }
  >();
  #version: number | null = null;
  /** Moves on every local change, so a load that raced one is not kept. */
  #generation = 0;
  readonly #onChanged: (payload: unknown) => void;
  readonly #foreignCheckMs: number;
  #checkedAt = -Infinity;

  constructor(
    store: ReadStore,
    signal: string,
    keyOf: (payload: unknown) => string | undefined,
    options: { foreignCheckMs?: number } = {},
  ) {
    this.#store = store;
    this.#signal = signal;
    this.#foreignCheckMs = options.foreignCheckMs ?? 0;
    this.#onChanged = (payload) => {
      this.#generation++;
      const key = keyOf(payload);
      if (key !== undefined) this.#entries.delete(key);
    };
    store.signals.on(signal, this.#onChanged);
  }

  /** The entry for `key`, from the copy while it is known current, else from `load`. */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const now = performance.now();
    if (this.#foreignCheckMs === 0 || now - this.#checkedAt >= this.#foreignCheckMs) {
      this.#checkedAt = now;
      const version = this.#store.foreignChanges();
      if (version !== this.#version) {
        this.#entries.clear();
        this.#version = version;
      }
    }
    const version = this.#version;
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const generation = this.#generation;
    const running = this.#loading.get(key);
    if (running && running.generation === generation && running.version === version) {
      // A read that joined a load that failed tries once more by itself, as it would have alone.
      return running.value.catch(() => load());
    }
    const loading = { generation, version, value: load() };
    this.#loading.set(key, loading);
    try {
      const value = await loading.value;
      if (value !== undefined && generation === this.#generation && version === this.#version) {
        if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
        this.#entries.set(key, value);
      }
      return value;
    } finally {
      if (this.#loading.get(key) === loading) this.#loading.delete(key);
    }
  }

  /** Stops following changes. */
  close(): void {
    this.#store.signals.off(this.#signal, this.#onChanged);
    this.#entries.clear();
    this.#loading.clear();
  }
}
