import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqlite } from '../../src/store/engine/sqlite.ts';
import { startCheckpointer } from '../../src/store/engine/sqlite-checkpointer.ts';

describe('SQLite checkpoint thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-checkpoint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('copies the commits of a writer that never checkpoints into the database file', async () => {
    const path = join(dir, 'checkpointed.db');
    const writer = openSqlite(path, { durability: 'normal', autoCheckpoint: false });
    writer.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = writer.prepare('INSERT INTO rows (body) VALUES (?)');
    writer.exec('BEGIN');
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(1000));
    writer.exec('COMMIT');
    // 500 KB committed, all of it still in the WAL: the writer's auto-checkpoint is off.
    const before = statSync(path).size;
    assert.ok(before < 100_000, `the database file holds ${before} bytes before any checkpoint`);

    const errors: string[] = [];
    const checkpointer = startCheckpointer(path, {
      intervalMs: 20,
      onError: (m) => errors.push(m),
    });
    try {
      let size = before;
      for (let i = 0; i < 100 && size < 500_000; i++) {
        await sleep(50);
        size = statSync(path).size;
      }
      assert.ok(size >= 500_000, `the database file grew to ${size} bytes`);
      assert.deepEqual(errors, []);
    } finally {
      await checkpointer.stop();
    }
    // The writer is untouched by the thread and its stop.
    insert.run('after');
    assert.equal((writer.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n, 501);
    writer.close();
  });

  test('starts the log over under a writer that never pauses, with no RESTART to fall back on', async () => {
    const path = join(dir, 'restarted.db');
    const writer = openSqlite(path, { durability: 'normal', autoCheckpoint: false });
    writer.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    const insert = writer.prepare('INSERT INTO rows (body) VALUES (?)');
    const errors: string[] = [];
    const databaseFd = openSync(path, 'r+');
    const checkpointer = startCheckpointer(path, {
      databaseFd,
      intervalMs: 2,
      restartFrames: 256,
      // No RESTART to fall back on: only the gate may bound the log.
      forceFrames: Number.MAX_SAFE_INTEGER,
      onError: (m) => errors.push(m),
    });
    const body = Buffer.alloc(1000, 1);
    let held = 0;
    let written = 0;
    try {
      // The thread is running once its first checkpoint has copied the table into the file.
      for (let i = 0; i < 100 && statSync(path).size <= 4096; i++) await sleep(50);
      // 60 MB through the log in transactions of 10 rows, back to back: a checkpoint
      // never finds the writer without a commit it has not copied yet, so only the gate
      // lets the writer start the log over.
      const deadline = performance.now() + 20_000;
      while (written < 60_000 && performance.now() < deadline) {
        const wait = checkpointer.enter();
        if (wait) {
          held++;
          await wait;
        }
        try {
          writer.exec('BEGIN IMMEDIATE');
          for (let i = 0; i < 10; i++) insert.run(body);
          writer.exec('COMMIT');
        } finally {
          checkpointer.leave();
        }
        written += 10;
      }
    } finally {
      await checkpointer.stop();
    }
    // The log's header counts the times it started over (its checkpoint sequence number).
    const restarts = readFileSync(`${path}-wal`).readUInt32BE(12);
    assert.ok(restarts >= 3, `the log started over ${restarts} times`);
    assert.ok(held >= 3, `the writer was held at the gate ${held} times`);
    assert.deepEqual(errors, []);
    assert.equal(
      (writer.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n,
      written,
    );
    writer.close();
    closeSync(databaseFd);
  });
});
