import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_QUEUE_EXPIRY_MS,
  SUBMISSION_MAX_ATTEMPTS,
  SUBMISSION_RETRY_DELAYS_MS,
  SUBMISSION_RETRY_JITTER,
  UNAVAILABLE_RETRY_MS,
  nextSubmissionAttemptAt,
  nextWaitingAttemptAt,
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

test('a send whose connection is not bound is tried again about every 2 s, spending no attempt', () => {
  const accepted = 1_000_000;
  const at = nextWaitingAttemptAt(accepted, accepted + 5_000, DEFAULT_QUEUE_EXPIRY_MS, () => 0.5);
  assert.equal(at, accepted + 5_000 + UNAVAILABLE_RETRY_MS);
  const early = nextWaitingAttemptAt(accepted, accepted, DEFAULT_QUEUE_EXPIRY_MS, () => 0);
  const late = nextWaitingAttemptAt(accepted, accepted, DEFAULT_QUEUE_EXPIRY_MS, () => 0.999);
  assert.ok(early! >= accepted + UNAVAILABLE_RETRY_MS * (1 - SUBMISSION_RETRY_JITTER));
  assert.ok(late! <= accepted + UNAVAILABLE_RETRY_MS * (1 + SUBMISSION_RETRY_JITTER));
});

test('a waiting send gives up once it has waited the queue expiry (24 h by default) since it was accepted', () => {
  const accepted = 1_000_000;
  assert.equal(DEFAULT_QUEUE_EXPIRY_MS, 24 * 3_600_000);
  const lastTry = nextWaitingAttemptAt(
    accepted,
    accepted + DEFAULT_QUEUE_EXPIRY_MS - 1,
    DEFAULT_QUEUE_EXPIRY_MS,
    () => 1,
  );
  assert.equal(lastTry, accepted + DEFAULT_QUEUE_EXPIRY_MS, 'never past the expiry');
  assert.equal(
    nextWaitingAttemptAt(
      accepted,
      accepted + DEFAULT_QUEUE_EXPIRY_MS,
      DEFAULT_QUEUE_EXPIRY_MS,
      () => 0.5,
    ),
    null,
  );
});
