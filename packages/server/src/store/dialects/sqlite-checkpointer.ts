import { Worker } from 'node:worker_threads';

/** A running checkpoint thread. */
export interface Checkpointer {
  /** Stops the thread after its current checkpoint. */
  stop(): Promise<void>;
}

/**
 * Checkpoints a WAL database from a worker thread with its own connection.
 *
 * `node:sqlite` is synchronous, so a checkpoint run by the writer (SQLite's
 * default, after the commit that crosses `wal_autocheckpoint`) blocks the event
 * loop while it copies pages and fsyncs the database file: on this kind of
 * 2-core machine that was the 100–400 ms tail of `POST /v1/messages` under load.
 * The writer runs with `wal_autocheckpoint = 0` instead, and this thread runs a
 * PASSIVE checkpoint every `intervalMs`, which never blocks the writer or readers.
 * The writer starts the WAL over by itself whenever a checkpoint has caught up.
 */
export function startCheckpointer(
  path: string,
  options: {
    intervalMs?: number;
    restartFrames?: number;
    onError?: (message: string) => void;
  } = {},
): Checkpointer {
  const worker = new Worker(new URL('./sqlite-checkpoint-worker.js', import.meta.url), {
    // It allocates next to nothing: V8's default young generation would only sit resident.
    resourceLimits: { maxYoungGenerationSizeMb: 1 },
    workerData: {
      path,
      intervalMs: options.intervalMs ?? 100,
      // 16 k frames of 4 KiB: a 64 MiB WAL before the writer is made to start over.
      restartFrames: options.restartFrames ?? 16_384,
    },
  });
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on('error', (error) => options.onError?.(String(error)));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Unreferenced while running so it never holds a process open; referenced again so
      // the process waits for its exit here.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
