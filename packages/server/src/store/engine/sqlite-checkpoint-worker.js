// The body of the SQLite checkpoint thread (see sqlite-checkpointer.ts): its own connection
// copies committed WAL frames back into the database file, so the event loop never does.
// Plain JavaScript on purpose: a thread that loads a .ts file starts its own copy of Node's
// type stripper, which kept 11 MB resident for these few lines.
import { fdatasyncSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

// The slots of `state`, as sqlite-checkpointer.ts numbers them.
const GATE = 0;
const WRITING = 1;
/** The longest the gate stays closed waiting for the writer's transaction to end. */
const WRITER_WAIT_MS = 200;

/**
 * @type {{
 *   path: string, state: Int32Array, databaseFd: number | null,
 *   intervalMs: number, restartFrames: number, forceFrames: number,
 * }}
 */
const { path, state, databaseFd, intervalMs, restartFrames, forceFrames } = workerData;
const db = new DatabaseSync(path);
// Only RESTART waits for locks; PASSIVE never does. The wait happens on this thread.
db.exec('PRAGMA busy_timeout = 5000');
db.exec('PRAGMA synchronous = FULL');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
/** @type {NodeJS.Timeout | null} */
let timer = null;

/**
 * Holds the writer at the gate, waits for its transaction under way to end, and copies
 * what is left: the writer's next transaction finds every frame copied and starts the
 * log over. A writer that stays in one transaction longer than WRITER_WAIT_MS is not
 * waited for; the next tick tries again.
 *
 * SQLite syncs the database file only in a checkpoint that ends with nothing left in
 * the log to copy; under a steady stream of commits the writer has always added some by
 * then, except at the gate, whose sync flushed every page copied since the log last
 * started over: 15–22 ms with the writer held. Flushed first, with the writer still
 * going, that left 6 ms at the gate (p50, against 20).
 */
function copyWithWriterHeld() {
  if (databaseFd !== null) fdatasyncSync(databaseFd);
  Atomics.store(state, GATE, 1);
  try {
    const deadline = performance.now() + WRITER_WAIT_MS;
    while (Atomics.load(state, WRITING) === 1) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      Atomics.wait(state, WRITING, 1, left);
    }
    passive.get();
  } finally {
    Atomics.store(state, GATE, 0);
    Atomics.notify(state, GATE);
  }
}

function tick() {
  try {
    const result = /** @type {{ busy: number, log: number, checkpointed: number }} */ (
      passive.get()
    );
    // Under a steady stream of commits a PASSIVE checkpoint rarely catches the writer
    // with nothing new, and only then does the writer start the log over.
    if (result.log > forceFrames) restart.get();
    else if (result.log > restartFrames) copyWithWriterHeld();
  } catch (error) {
    parentPort?.postMessage({ error: String(error) });
  }
  timer = setTimeout(tick, intervalMs);
}

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  if (timer) clearTimeout(timer);
  db.close();
  parentPort?.close();
});
tick();
