// The bench's disk probe: it flushes a real file at the rate asked and times every flush.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { diskSyncs } from '../../bench/lib/disk.ts';

test('the disk probe flushes seconds × rate times, paced, and leaves no file behind', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'disk-probe-'));
  try {
    const started = performance.now();
    const disk = await diskSyncs(dir, 0.2, 50);
    assert.equal(disk.count, 10);
    // Paced: the tenth flush starts 180 ms after the first.
    assert.ok(performance.now() - started >= 180);
    assert.ok(disk.percentiles.length > 0);
    assert.ok(disk.maxMs >= disk.percentiles.at(-1)![1]);
    assert.ok(disk.stalls >= 0 && disk.stalls <= disk.count);
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
