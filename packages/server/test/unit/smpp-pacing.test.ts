import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucket, backoffDelay, DEFAULT_BACKOFF } from '../../src/carriers/smpp/pacing.ts';

describe('the throughput cap (token bucket)', () => {
  it('lets `rate` submissions through per second, and says how long the next one waits', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 1, () => now);
    assert.equal(bucket.take(), 0);
    assert.equal(bucket.take(), 100, 'one token every 100 ms');
    now = 60;
    assert.equal(bucket.take(), 40);
    now = 100;
    assert.equal(bucket.take(), 0);
    let taken = 0;
    for (now = 100; now <= 1_100; now += 1) if (bucket.take() === 0) taken++;
    assert.equal(taken, 10, 'ten in the next second');
  });

  it('saves up at most `burst` tokens over a quiet spell', () => {
    let now = 0;
    const bucket = new TokenBucket(5, 3, () => now);
    for (let i = 0; i < 3; i++) bucket.take();
    now = 60_000;
    assert.deepEqual([bucket.take(), bucket.take(), bucket.take()], [0, 0, 0]);
    assert.ok(bucket.take() > 0);
  });

  it('caps nothing with a rate of 0', () => {
    const bucket = new TokenBucket(0, 1, () => 0);
    for (let i = 0; i < 1000; i++) assert.equal(bucket.take(), 0);
  });
});

describe('the reconnect backoff', () => {
  const options = { initialMs: 100, maxMs: 2_000, factor: 2, jitter: 0.5 };

  it('doubles from the first delay up to the cap, without jitter at random 0', () => {
    const delays = [0, 1, 2, 3, 4, 5, 10].map((attempt) => backoffDelay(attempt, options, () => 0));
    assert.deepEqual(delays, [100, 200, 400, 800, 1_600, 2_000, 2_000]);
  });

  it('takes up to the jitter share off each delay, by the random draw', () => {
    assert.equal(
      backoffDelay(2, options, () => 0.999999),
      200,
    );
    assert.equal(
      backoffDelay(2, options, () => 0.5),
      300,
    );
    for (let i = 0; i < 100; i++) {
      const delay = backoffDelay(3, options, Math.random);
      assert.ok(delay >= 400 && delay <= 800, String(delay));
    }
  });

  it('by default starts at a second and stays under a minute', () => {
    assert.equal(
      backoffDelay(0, DEFAULT_BACKOFF, () => 0),
      1_000,
    );
    assert.equal(
      backoffDelay(50, DEFAULT_BACKOFF, () => 0),
      60_000,
    );
  });
});
