import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqlite } from '../../src/store/dialects/sqlite.ts';
import { startCheckpointer } from '../../src/store/dialects/sqlite-checkpointer.ts';

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
});
