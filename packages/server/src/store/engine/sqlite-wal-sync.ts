import { open, type FileHandle } from 'node:fs/promises';

/** Makes committed WAL frames durable without blocking the event loop. */
export interface WalSync {
  /** Resolves once every frame committed so far is on disk. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Flushes a WAL database's log from libuv's thread pool.
 *
 * With `synchronous = FULL`, SQLite fsyncs the WAL inside `COMMIT`, and
 * `node:sqlite` runs `COMMIT` on the event loop: every group commit stopped the
 * whole process for the disk's flush (p50 0.3–0.7 ms, p99 4–9 ms, max 30–70 ms
 * on the benchmark machine), 7 % of the wall time under the POST load. The writer
 * commits at `synchronous = NORMAL` instead (the frames are written, not flushed)
 * and the write queue answers a batch only after `flush()` (fdatasync of the
 * `-wal` file), while the next batch already runs. That is the guarantee FULL
 * gives: a transaction is acknowledged only once its frames are on disk. Until
 * then another connection may already read the rows (a GET of a message whose
 * POST is not answered yet); nothing in this process acts on them, because
 * workers read through write units, which are answered after the flush too.
 *
 * The file is opened for writing only so that the flush is allowed everywhere;
 * nothing is written through it. SQLite keeps its locks on the database and
 * `-shm` files, never on the `-wal`, so this descriptor cannot release one.
 */
export function walSync(databasePath: string): WalSync {
  let handle: Promise<FileHandle> | null = null;
  const datasync = async () => {
    // The log exists once the first transaction has committed.
    handle ??= open(`${databasePath}-wal`, 'r+');
    await (await handle).datasync();
  };
  // One flush at a time; every request made while one runs shares the next one,
  // which starts after it and so covers every frame those requests wrote.
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const flush = (): Promise<void> => {
    if (!running) {
      running = datasync().finally(() => (running = null));
      return running;
    }
    const after = () => {
      next = null;
      return flush();
    };
    next ??= running.then(after, after);
    return next;
  };
  return {
    flush,
    async close() {
      if (handle) await (await handle).close();
      handle = null;
    },
  };
}
