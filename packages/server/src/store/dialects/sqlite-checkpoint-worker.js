// The body of the SQLite checkpoint thread (see sqlite-checkpointer.ts): its own connection
// copies committed WAL frames back into the database file, so the event loop never does.
// Plain JavaScript on purpose: a thread that loads a .ts file starts its own copy of Node's
// type stripper, which kept 11 MB resident for these few lines.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ path: string, intervalMs: number, restartFrames: number }} */
const { path, intervalMs, restartFrames } = workerData;
const db = new DatabaseSync(path);
// Only RESTART waits for locks; PASSIVE never does. The wait happens on this thread.
db.exec('PRAGMA busy_timeout = 5000');
db.exec('PRAGMA synchronous = FULL');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
/** @type {NodeJS.Timeout | null} */
let timer = null;

function tick() {
  try {
    const result = /** @type {{ busy: number, log: number, checkpointed: number }} */ (
      passive.get()
    );
    // Under a steady stream of commits a PASSIVE checkpoint rarely catches the writer with
    // nothing new, and only then can the writer start the WAL over; past a size, RESTART
    // makes it start over (briefly holding writers back, which only happens under load).
    if (result.log > restartFrames) restart.get();
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
