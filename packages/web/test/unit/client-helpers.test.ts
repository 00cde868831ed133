// The softphone's pure helpers: number entry and display, reconnect timing. (SMS segment
// counting is the SDK's, tested with it in packages/sdk/test/segments.test.ts.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDuration, formatPhone, initials, toE164 } from '../../src/lib/format.ts';
import { backoffDelay } from '../../src/lib/realtime.ts';

describe('phone numbers as people type and read them', () => {
  test('toE164 accepts the usual ways of writing a number', () => {
    assert.equal(toE164('+14155550123'), '+14155550123');
    assert.equal(toE164('(415) 555-0123'), '+14155550123');
    assert.equal(toE164('415.555.0123'), '+14155550123');
    assert.equal(toE164('1 415 555 0123'), '+14155550123');
    assert.equal(toE164('+44 20 7946 0958'), '+442079460958');
  });

  test('toE164 refuses what is not a number', () => {
    for (const text of ['', 'Ada', '555-0123', '+0123456789', '+1415555012345678']) {
      assert.equal(toE164(text), null, text);
    }
  });

  test('formatPhone spells North American numbers locally and leaves others in E.164', () => {
    assert.equal(formatPhone('+14155550123'), '(415) 555-0123');
    assert.equal(formatPhone('+442079460958'), '+442079460958');
  });

  test('initials and durations', () => {
    assert.equal(initials('Ada Lovelace'), 'AL');
    assert.equal(initials('Cher'), 'CH');
    assert.equal(initials('Jean-Luc de la Tour'), 'JD');
    assert.equal(initials(null), '#');
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(185), '3m 05s');
    assert.equal(formatDuration(3720), '1h 02m');
  });
});

describe('reconnect backoff', () => {
  test('doubles from half a second to thirty, with jitter in the upper half', () => {
    assert.equal(
      backoffDelay(0, () => 0),
      250,
    );
    assert.equal(
      backoffDelay(0, () => 1),
      500,
    );
    assert.equal(
      backoffDelay(3, () => 1),
      4000,
    );
    assert.equal(
      backoffDelay(20, () => 1),
      30_000,
    );
    assert.equal(
      backoffDelay(20, () => 0),
      15_000,
    );
  });
});
