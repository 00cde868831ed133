import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DueTimes } from '../../src/lib/due-times.ts';

describe('due times', () => {
  test('next is the earliest time added, and Infinity when none is left', () => {
    const times = new DueTimes();
    assert.equal(times.next(), Infinity);
    for (const at of [50, 20, 90, 20, 70]) times.add(at);
    assert.equal(times.next(), 20);
    assert.equal(times.size, 5);
  });

  test('passing a time forgets every time at or before it, and only those', () => {
    const times = new DueTimes();
    for (const at of [50, 20, 90, 20, 70]) times.add(at);
    times.passTo(20);
    assert.deepEqual([times.next(), times.size], [50, 3]);
    times.passTo(69);
    assert.deepEqual([times.next(), times.size], [70, 2]);
    times.passTo(1000);
    assert.deepEqual([times.next(), times.size], [Infinity, 0]);
  });

  test('thousands of times in any order come out in order', () => {
    const times = new DueTimes();
    const added = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5003);
    for (const at of added) times.add(at);
    const out: number[] = [];
    while (times.size > 0) {
      const at = times.next();
      out.push(at);
      times.passTo(at);
      // Equal times go together.
      while (times.next() === at) times.passTo(at);
    }
    assert.deepEqual(
      out,
      [...new Set(added)].sort((a, b) => a - b),
    );
  });
});
