// The supervisor of the voice programs (voice/supervisor.ts): what it stops, it stops whole.
// Kamailio forks workers; a main process killed after the grace period must not leave them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/lib/logger.ts';
import { supervise } from '../../src/voice/supervisor.ts';

/** Running: a zombie (killed, not yet reaped by init) is not. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

test('stopping a program that ignores SIGTERM also kills the processes it forked', async () => {
  // The shell ignores TERM, as a stuck main process would, and forks a worker that outlives it.
  const program = supervise(
    'forking',
    '/bin/sh',
    ['-c', 'trap "" TERM; sleep 60 & echo "worker $!"; wait'],
    createLogger('silent'),
  );
  let worker = 0;
  for (let i = 0; i < 100 && worker === 0; i++) {
    worker = Number(/worker (\d+)/.exec(program.lastLines())?.[1] ?? 0);
    if (worker === 0) await sleep(20);
  }
  assert.ok(worker > 0, 'the worker started');
  await program.stop(200);
  for (let i = 0; i < 50 && alive(worker); i++) await sleep(20);
  assert.equal(alive(worker), false, 'the forked worker is gone with its program');
});
