import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  SUBMISSION_MAX_ATTEMPTS,
  SUBMISSION_RETRY_DELAYS_MS,
  SUBMISSION_RETRY_JITTER,
  nextSubmissionAttemptAt,
} from '../../src/domain/submission-retry.ts';

const NOW = 1_700_000_000_000;

test('each failed submission waits its scheduled time before the next attempt', () => {
  SUBMISSION_RETRY_DELAYS_MS.forEach((delay, i) => {
    assert.equal(
      nextSubmissionAttemptAt(i + 1, NOW, () => 0.5),
      NOW + delay,
    );
  });
  assert.deepEqual(
    SUBMISSION_RETRY_DELAYS_MS.map((ms) => ms / 1000),
    [1, 5, 30, 120, 600, 1800, 3600],
  );
});

test('after the last attempt a submission is given up (null)', () => {
  assert.equal(
    nextSubmissionAttemptAt(SUBMISSION_MAX_ATTEMPTS, NOW, () => 0.5),
    null,
  );
  assert.equal(
    nextSubmissionAttemptAt(SUBMISSION_MAX_ATTEMPTS + 5, NOW, () => 0.5),
    null,
  );
});

test('jitter spreads each wait by at most its fraction, both ways', () => {
  for (let attempts = 1; attempts < SUBMISSION_MAX_ATTEMPTS; attempts++) {
    const delay = SUBMISSION_RETRY_DELAYS_MS[attempts - 1]!;
    const earliest = nextSubmissionAttemptAt(attempts, NOW, () => 0)! - NOW;
    const latest = nextSubmissionAttemptAt(attempts, NOW, () => 0.999999)! - NOW;
    assert.equal(earliest, Math.round(delay * (1 - SUBMISSION_RETRY_JITTER)));
    assert.ok(latest > delay && latest <= Math.round(delay * (1 + SUBMISSION_RETRY_JITTER)));
  }
});

test('an attempt count below one is a programming error', () => {
  assert.throws(() => nextSubmissionAttemptAt(0, NOW, Math.random), RangeError);
  assert.throws(() => nextSubmissionAttemptAt(1.5, NOW, Math.random), RangeError);
});
