// The body of the SQLite checkpoint thread (see sqlite-checkpointer.ts): its own connection
// copies committed WAL frames back into the database file, so the event loop never does.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

interface Settings {
  path: string;
  intervalMs: number;
  restartFrames: number;
}

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const { path, intervalMs, restartFrames } = workerData as Settings;
const db = new DatabaseSync(path);
// Only RESTART waits for locks; PASSIVE never does. The wait happens on this thread.
db.exec('PRAGMA busy_timeout = 5000');
db.exec('PRAGMA synchronous = FULL');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
let timer: NodeJS.Timeout | null = null;

function tick(): void {
  try {
    const result = passive.get() as unknown as CheckpointResult;
    // Under a steady stream of commits a PASSIVE checkpoint rarely catches the writer with
    // nothing new, and only then can the writer start the WAL over; past a size, RESTART
    // makes it start over (briefly holding writers back, which only happens under load).
    if (result.log > restartFrames) restart.get();
  } catch (error) {
    parentPort?.postMessage({ error: String(error) });
  }
  timer = setTimeout(tick, intervalMs);
}

parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  if (timer) clearTimeout(timer);
  db.close();
  parentPort?.close();
});
tick();
