import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Gather } from '../../src/lib/gather.ts';

describe('gathering items to hand over together', () => {
  test('items that arrive within the wait are handed over together, once the wait is over', async () => {
    const handed: number[][] = [];
    const gather = new Gather<number>((items) => handed.push(items), { waitMs: 200, maxItems: 10 });
    gather.add(1);
    gather.add(2);
    await sleep(5);
    gather.add(3);
    assert.deepEqual(handed, [], 'nothing is handed over before the wait is over');
    await sleep(300);
    assert.deepEqual(handed, [[1, 2, 3]]);
  });

  test('reaching maxItems hands over at once', () => {
    const handed: number[][] = [];
    const gather = new Gather<number>((items) => handed.push(items), {
      waitMs: 60_000,
      maxItems: 3,
    });
    for (let i = 1; i <= 7; i++) gather.add(i);
    assert.deepEqual(handed, [
      [1, 2, 3],
      [4, 5, 6],
    ]);
    gather.flush();
    assert.deepEqual(handed.at(-1), [7]);
  });

  test('flush hands over at once and leaves no timer behind; with nothing gathered it does nothing', async () => {
    const handed: number[][] = [];
    const gather = new Gather<number>((items) => handed.push(items), { waitMs: 20, maxItems: 10 });
    gather.flush();
    gather.add(1);
    gather.flush();
    await sleep(40);
    assert.deepEqual(handed, [[1]]);
  });
});
