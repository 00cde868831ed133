import { Worker } from 'node:worker_threads';

/** A running checkpoint thread. */
export interface Checkpointer {
  /**
   * Call before the writer begins a transaction, and await what it returns if anything:
   * the thread is starting the log over, which needs a moment without commits.
   */
  enter(): Promise<void> | undefined;
  /** Call once the writer's transaction has ended, committed or rolled back. */
  leave(): void;
  /** Stops the thread after its current checkpoint. */
  stop(): Promise<void>;
}

/** Slots of the state the writer and the thread share (`Int32Array` indexes). */
const GATE = 0;
const WRITING = 1;

/**
 * Checkpoints a WAL database from a worker thread with its own connection.
 *
 * `node:sqlite` is synchronous, so a checkpoint run by the writer (SQLite's
 * default, after the commit that crosses `wal_autocheckpoint`) blocks the event
 * loop while it copies pages and fsyncs the database file: on this kind of
 * 2-core machine that was the 100–400 ms tail of `POST /v1/messages` under load.
 * The writer runs with `wal_autocheckpoint = 0` instead, and this thread runs a
 * PASSIVE checkpoint every `intervalMs`, which never blocks the writer or readers.
 *
 * The writer starts the log over by itself when it begins a transaction after a
 * checkpoint copied every frame. Under a steady stream of commits a new one has
 * almost always landed by then, so once the log passes `restartFrames` the thread
 * closes a gate the writer checks before each transaction (`enter`), waits for the
 * transaction under way (`leave`), copies what it wrote, and opens the gate: the
 * next transaction starts the log over. The writer's thread keeps running meanwhile
 * (answering the batches whose flush completes) and goes on the moment the gate
 * opens: about 6 ms under the POST load, with the database file flushed just
 * before. SQLite's own way, a RESTART checkpoint, held the write lock 20–25 ms there,
 * and the writer waited for it in SQLite's busy handler, which blocks its thread in
 * sleeps of 1, 2, 5, 10, 15, 20 ms…: a writer held for 20 ms woke at 33
 * (docs/benchmarks.md). RESTART remains the fallback past `forceFrames`, for a log
 * that another process's writes keep from starting over.
 */
export function startCheckpointer(
  path: string,
  options: {
    intervalMs?: number;
    restartFrames?: number;
    /** Where a RESTART checkpoint takes over from the gate; default 4 × `restartFrames`. */
    forceFrames?: number;
    /**
     * A descriptor of the database file, flushed before the gate closes (see the
     * thread's `copyWithWriterHeld`). The caller closes it, and only once every
     * connection to the file has closed: closing any descriptor of a file drops the
     * process's POSIX locks on it, SQLite's included.
     */
    databaseFd?: number;
    onError?: (message: string) => void;
  } = {},
): Checkpointer {
  const restartFrames = options.restartFrames ?? 16_384;
  const state = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(new URL('./sqlite-checkpoint-worker.js', import.meta.url), {
    // It allocates next to nothing: V8's default young generation would only sit resident.
    resourceLimits: { maxYoungGenerationSizeMb: 1 },
    workerData: {
      path,
      state,
      databaseFd: options.databaseFd ?? null,
      intervalMs: options.intervalMs ?? 100,
      // 16 k frames of 4 KiB: a 64 MiB WAL before the writer is made to start over.
      restartFrames,
      forceFrames: options.forceFrames ?? 4 * restartFrames,
    },
  });
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on('error', (error) => options.onError?.(String(error)));
  let running = true;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      // A thread that ended with the gate closed must not keep the writer out.
      running = false;
      Atomics.store(state, GATE, 0);
      Atomics.notify(state, GATE);
      resolve();
    }),
  );
  const enter = (): Promise<void> | undefined => {
    // Sequentially consistent: the thread either sees this store before it copies, and
    // waits for `leave`, or closed the gate before it, which the load below sees.
    Atomics.store(state, WRITING, 1);
    if (!running || Atomics.load(state, GATE) === 0) return undefined;
    Atomics.store(state, WRITING, 0);
    Atomics.notify(state, WRITING);
    // Woken when the gate opens; the timeout only looks again (a thread that ended
    // with the gate closed opens it on its way out, above).
    const wait = Atomics.waitAsync(state, GATE, 1, 1000);
    return (wait.async ? wait.value : Promise.resolve()).then(() => enter());
  };
  return {
    enter,
    leave() {
      Atomics.store(state, WRITING, 0);
      Atomics.notify(state, WRITING);
    },
    async stop() {
      // Unreferenced while running so it never holds a process open; referenced again so
      // the process waits for its exit here.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
