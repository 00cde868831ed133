import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RateLimiter } from '../../src/http/plugins/rate-limit.ts';

describe('RateLimiter', () => {
  test('buckets idle long enough to be full again are forgotten: one per key seen lately', () => {
    const limiter = new RateLimiter(10);
    for (let i = 0; i < 1000; i++) limiter.take(`203.0.113.${i}`, 0);
    assert.equal(limiter.size, 1000);
    // Refilled after burst / rate = 2 s: the next take sweeps them all but its own.
    limiter.take('198.51.100.1', 2_000);
    assert.equal(limiter.size, 1);
  });

  test('a bucket still refilling is kept, with what it has taken', () => {
    const limiter = new RateLimiter(1); // a burst of 2, full again after 2 s idle
    limiter.take('idle', 0);
    limiter.take('busy', 0);
    limiter.take('busy', 0);
    assert.equal(limiter.take('busy', 1_500), 0, '1.5 tokens came back, one is taken');
    // At 2.5 s the sweep forgets 'idle' (full again) and keeps 'busy' (idle for 1 s).
    assert.equal(limiter.take('busy', 2_500), 0, '0.5 + 1 tokens');
    assert.equal(limiter.take('busy', 2_500), 1, 'and no fresh burst');
    assert.equal(limiter.size, 1);
  });

  test('keys never hold more buckets than the cap, however many arrive at once', () => {
    const limiter = new RateLimiter(10, { maxBuckets: 100 });
    for (let i = 0; i < 1000; i++) limiter.take(`key ${i}`, 0);
    assert.equal(limiter.size, 100);
  });
});
