import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ENDPOINT_DISABLE_AFTER_MS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  classifyAttempt,
  nextAttemptAt,
  parseRetryAfter,
  retryAfterDelay,
  shouldDisableEndpoint,
} from '../../src/domain/retry-schedule.ts';
import type { AttemptError, AttemptOutcome } from '../../src/domain/retry-schedule.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const noJitter = () => 0.5;

/** A small deterministic generator (mulberry32) so the jitter test covers many values reproducibly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('retry schedule', () => {
  test('the schedule is the first attempt at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    assert.deepEqual(RETRY_DELAYS_MS, [
      0,
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
    ]);
    assert.equal(MAX_ATTEMPTS, 10);
  });

  test('the first attempt is immediate', () => {
    assert.equal(nextAttemptAt({ attempt: 0, now: NOW, random: Math.random }), NOW);
  });

  test('without jitter the whole schedule spans about three days', () => {
    let at = NOW;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const next = nextAttemptAt({ attempt, now: at, random: noJitter });
      assert.notEqual(next, null, `attempt ${attempt + 1} must be scheduled`);
      at = next as number;
    }
    const total = at - NOW;
    assert.equal(total, 75 * HOUR + 35 * MINUTE + 5 * SECOND);
    assert.ok(total > 3 * DAY && total < 3.25 * DAY, `total ${total / DAY} days`);
  });

  test('after the last attempt the delivery gives up', () => {
    assert.notEqual(nextAttemptAt({ attempt: MAX_ATTEMPTS - 1, now: NOW, random: noJitter }), null);
    assert.equal(nextAttemptAt({ attempt: MAX_ATTEMPTS, now: NOW, random: noJitter }), null);
    assert.equal(nextAttemptAt({ attempt: MAX_ATTEMPTS + 5, now: NOW, random: noJitter }), null);
  });

  test('a negative or fractional attempt count is a programming error', () => {
    assert.throws(() => nextAttemptAt({ attempt: -1, now: NOW, random: noJitter }), RangeError);
    assert.throws(() => nextAttemptAt({ attempt: 1.5, now: NOW, random: noJitter }), RangeError);
  });

  test('jitter keeps every wait within ±10 % of the schedule', () => {
    const random = seeded(42);
    for (let round = 0; round < 200; round++) {
      for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
        const base = RETRY_DELAYS_MS[attempt] as number;
        const wait = (nextAttemptAt({ attempt, now: NOW, random }) as number) - NOW;
        assert.ok(wait >= base * 0.9 - 1 && wait <= base * 1.1 + 1, `attempt ${attempt}: ${wait}`);
      }
    }
  });

  test('jitter reaches both ends of the ±10 % band', () => {
    const base = RETRY_DELAYS_MS[4] as number;
    assert.equal(nextAttemptAt({ attempt: 4, now: NOW, random: () => 0 }), NOW + base * 0.9);
    const high = (nextAttemptAt({ attempt: 4, now: NOW, random: () => 0.999999 }) as number) - NOW;
    assert.ok(high > base * 1.0999 && high <= base * 1.1, `high wait ${high}`);
  });

  test('a Retry-After asking for more time than the schedule wins', () => {
    // Attempt 2 is due 5 minutes later; the endpoint asks for an hour.
    const at = nextAttemptAt({ attempt: 2, now: NOW, random: noJitter, retryAfterMs: HOUR });
    assert.equal(at, NOW + HOUR);
  });

  test('a Retry-After asking for less time than the schedule is ignored', () => {
    const at = nextAttemptAt({ attempt: 3, now: NOW, random: noJitter, retryAfterMs: 10 * SECOND });
    assert.equal(at, NOW + 30 * MINUTE);
  });

  test('a Retry-After is capped at 24 hours', () => {
    const at = nextAttemptAt({ attempt: 1, now: NOW, random: noJitter, retryAfterMs: 7 * DAY });
    assert.equal(at, NOW + DAY);
  });

  test('a Retry-After does not extend the schedule past its last attempt', () => {
    const at = nextAttemptAt({
      attempt: MAX_ATTEMPTS,
      now: NOW,
      random: noJitter,
      retryAfterMs: HOUR,
    });
    assert.equal(at, null);
  });
});

describe('parseRetryAfter', () => {
  test('delta-seconds become milliseconds', () => {
    assert.equal(parseRetryAfter('120', NOW), 120 * SECOND);
    assert.equal(parseRetryAfter(' 0 ', NOW), 0);
  });

  test('an IMF-fixdate becomes the time left until it', () => {
    const value = new Date(NOW + 90 * SECOND).toUTCString();
    assert.equal(parseRetryAfter(value, NOW), 90 * SECOND);
  });

  test('the obsolete RFC 850 and asctime date forms are read as UTC', () => {
    // NOW is Wednesday 15 January 2025, 12:00:00 UTC.
    assert.equal(parseRetryAfter('Wednesday, 15-Jan-25 12:10:00 GMT', NOW), 10 * MINUTE);
    assert.equal(parseRetryAfter('Wed Jan 15 13:00:00 2025', NOW), HOUR);
  });

  test('a date in the past asks for no wait', () => {
    assert.equal(parseRetryAfter(new Date(NOW - HOUR).toUTCString(), NOW), 0);
  });

  test('malformed or absent values are ignored', () => {
    for (const value of ['', 'soon', '-5', '1.5', '2025-01-15T13:00:00Z', undefined, null]) {
      assert.equal(parseRetryAfter(value, NOW), null, `value ${String(value)}`);
    }
  });

  test('a repeated header is read from its first value', () => {
    assert.equal(parseRetryAfter(['30', '600'], NOW), 30 * SECOND);
  });

  test('only a 429 or 503 answer may ask for a pause', () => {
    assert.equal(retryAfterDelay(429, '60', NOW), 60 * SECOND);
    assert.equal(retryAfterDelay(503, '60', NOW), 60 * SECOND);
    assert.equal(retryAfterDelay(500, '60', NOW), null);
    assert.equal(retryAfterDelay(301, '60', NOW), null);
  });
});

describe('classifyAttempt', () => {
  const table: [{ status?: number; error?: AttemptError }, AttemptOutcome][] = [
    [{ status: 200 }, 'success'],
    [{ status: 201 }, 'success'],
    [{ status: 204 }, 'success'],
    [{ status: 299 }, 'success'],
    [{ status: 410 }, 'disable_endpoint'],
    [{ status: 301 }, 'retry'],
    [{ status: 302 }, 'retry'],
    [{ status: 307 }, 'retry'],
    [{ status: 308 }, 'retry'],
    [{ status: 100 }, 'retry'],
    [{ status: 400 }, 'retry'],
    [{ status: 404 }, 'retry'],
    [{ status: 429 }, 'retry'],
    [{ status: 500 }, 'retry'],
    [{ status: 503 }, 'retry'],
    [{ error: 'timeout' }, 'retry'],
    [{ error: 'refused' }, 'retry'],
    [{ error: 'dns' }, 'retry'],
    [{ error: 'tls' }, 'retry'],
    [{ error: 'ssrf' }, 'retry'],
    [{ error: 'other' }, 'retry'],
    [{}, 'retry'],
  ];
  for (const [input, expected] of table) {
    test(`${JSON.stringify(input)} is ${expected}`, () => {
      assert.equal(classifyAttempt(input), expected);
    });
  }
});

describe('shouldDisableEndpoint', () => {
  test('an endpoint is disabled once its deliveries have all failed for five days', () => {
    assert.equal(ENDPOINT_DISABLE_AFTER_MS, 5 * DAY);
    assert.equal(shouldDisableEndpoint(NOW - 5 * DAY, NOW), true);
    assert.equal(shouldDisableEndpoint(NOW - 6 * DAY, NOW), true);
  });

  test('an endpoint failing for less than five days stays enabled', () => {
    assert.equal(shouldDisableEndpoint(NOW - 5 * DAY + 1, NOW), false);
    assert.equal(shouldDisableEndpoint(NOW, NOW), false);
  });

  test('an endpoint that is not failing is never disabled', () => {
    assert.equal(shouldDisableEndpoint(null, NOW + 100 * DAY), false);
  });
});
