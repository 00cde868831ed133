import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { timingSafeEqual } from '../src/webhooks/crypto.ts';
import { signWebhookPayload, verifyWebhook } from '../src/webhooks/verify.ts';
import {
  AT_T,
  BODY,
  EVENT,
  nodeHeader,
  OTHER_SECRET,
  SECRET,
  T,
} from './support/webhook-fixtures.ts';

describe('timingSafeEqual', () => {
  test('equal bytes are equal', () => {
    assert.equal(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])), true);
    assert.equal(timingSafeEqual(new Uint8Array(), new Uint8Array()), true);
  });

  test('one differing bit anywhere makes them unequal', () => {
    const a = new Uint8Array(32).fill(0xab);
    for (const index of [0, 15, 31]) {
      const b = a.slice();
      b[index]! ^= 0x01;
      assert.equal(timingSafeEqual(a, b), false, `byte ${index}`);
    }
  });

  test('different lengths are unequal, even when one is a prefix of the other', () => {
    assert.equal(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3])), false);
  });
});

describe('signWebhookPayload', () => {
  test('produces the header node:crypto computes', async () => {
    assert.equal(
      await signWebhookPayload(BODY, SECRET, { timestamp: T }),
      nodeHeader(BODY, SECRET, T),
    );
  });

  test('signs with the current time by default, and verifyWebhook accepts it', async () => {
    const header = await signWebhookPayload(BODY, SECRET);
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)?.[1]);
    assert.ok(Math.abs(t - Date.now() / 1000) < 5);
    assert.equal((await verifyWebhook(BODY, header, SECRET)).id, EVENT.id);
  });

  test('several secrets give one v1 each, as during a rotation', async () => {
    const header = await signWebhookPayload(BODY, [OTHER_SECRET, SECRET], { timestamp: T });
    assert.equal(header.split(',').length, 3);
    assert.equal((await verifyWebhook(BODY, header, SECRET, AT_T)).id, EVENT.id);
    assert.equal((await verifyWebhook(BODY, header, OTHER_SECRET, AT_T)).id, EVENT.id);
  });

  test('a timestamp in milliseconds or with a fraction is refused', async () => {
    await assert.rejects(signWebhookPayload(BODY, SECRET, { timestamp: T * 1000 }), RangeError);
    await assert.rejects(signWebhookPayload(BODY, SECRET, { timestamp: T + 0.5 }), RangeError);
  });
});
