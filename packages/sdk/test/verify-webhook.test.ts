import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook, WebhookVerificationError as StandardError } from 'standardwebhooks';
import {
  standardWebhooksSignature,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../src/webhooks/verify.ts';
import {
  AT_T,
  BODY,
  EVENT,
  nodeHeader,
  OTHER_SECRET,
  SECRET,
  T,
} from './support/webhook-fixtures.ts';

/** Asserts the promise rejects with a WebhookVerificationError for exactly `reason`. */
async function rejectsWith(promise: Promise<unknown>, reason: WebhookVerificationReason) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    assert.equal(error.reason, reason);
    return true;
  });
}

describe('verifyWebhook', () => {
  test('a valid signature returns the typed event', async () => {
    const event = await verifyWebhook(BODY, nodeHeader(BODY, SECRET, T), SECRET, AT_T);
    assert.deepEqual(event, EVENT);
    if (event.type !== 'message.received') assert.fail('narrowing on type');
    assert.equal(event.data.body, 'Grüße 👋');
  });

  test('a tampered body is rejected', async () => {
    const header = nodeHeader(BODY, SECRET, T);
    await rejectsWith(
      verifyWebhook(BODY.replace('Grüße', 'Grüsse'), header, SECRET, AT_T),
      'no_matching_signature',
    );
  });

  test('re-serialized JSON is rejected: only the raw bytes verify', async () => {
    const raw = JSON.stringify(EVENT, null, 2);
    const header = nodeHeader(raw, SECRET, T);
    await verifyWebhook(raw, header, SECRET, AT_T);
    const reserialized = JSON.stringify(JSON.parse(raw));
    await rejectsWith(verifyWebhook(reserialized, header, SECRET, AT_T), 'no_matching_signature');
  });

  test('a timestamp edited in the header breaks the signature', async () => {
    const header = nodeHeader(BODY, SECRET, T).replace(`t=${T}`, `t=${T + 1}`);
    await rejectsWith(
      verifyWebhook(BODY, header, SECRET, { now: new Date((T + 1) * 1000) }),
      'no_matching_signature',
    );
  });

  test('a timestamp more than 300 s old is rejected; exactly 300 s is accepted', async () => {
    const header = nodeHeader(BODY, SECRET, T);
    await verifyWebhook(BODY, header, SECRET, { now: new Date((T + 300) * 1000) });
    await rejectsWith(
      verifyWebhook(BODY, header, SECRET, { now: new Date((T + 301) * 1000) }),
      'timestamp_outside_tolerance',
    );
  });

  test('a timestamp more than 300 s in the future is rejected too', async () => {
    const header = nodeHeader(BODY, SECRET, T);
    await verifyWebhook(BODY, header, SECRET, { now: new Date((T - 300) * 1000) });
    await rejectsWith(
      verifyWebhook(BODY, header, SECRET, { now: new Date((T - 301) * 1000) }),
      'timestamp_outside_tolerance',
    );
  });

  test('toleranceSeconds widens or narrows the window', async () => {
    const header = nodeHeader(BODY, SECRET, T);
    const later = new Date((T + 3600) * 1000);
    await verifyWebhook(BODY, header, SECRET, { now: later, toleranceSeconds: 3600 });
    await rejectsWith(
      verifyWebhook(BODY, header, SECRET, { now: new Date((T + 6) * 1000), toleranceSeconds: 5 }),
      'timestamp_outside_tolerance',
    );
    await assert.rejects(verifyWebhook(BODY, header, SECRET, { toleranceSeconds: -1 }), RangeError);
  });

  test('the clock is used when now is not given', async () => {
    const header = nodeHeader(BODY, SECRET, Math.floor(Date.now() / 1000));
    await verifyWebhook(BODY, header, SECRET);
    await rejectsWith(
      verifyWebhook(BODY, nodeHeader(BODY, SECRET, T), SECRET),
      'timestamp_outside_tolerance',
    );
  });

  test('a wrong secret is rejected', async () => {
    const header = nodeHeader(BODY, SECRET, T);
    await rejectsWith(verifyWebhook(BODY, header, OTHER_SECRET, AT_T), 'no_matching_signature');
  });

  test('the key is the whole secret string, whsec_ included', async () => {
    const withoutPrefix = SECRET.slice('whsec_'.length);
    await rejectsWith(
      verifyWebhook(BODY, nodeHeader(BODY, withoutPrefix, T), SECRET, AT_T),
      'no_matching_signature',
    );
  });

  test('several v1 entries: accepted when any one matches, here the second', async () => {
    const good = nodeHeader(BODY, SECRET, T).split(',')[1];
    const bad = nodeHeader(BODY, OTHER_SECRET, T).split(',')[1];
    const event = await verifyWebhook(BODY, `t=${T},${bad},${good}`, SECRET, AT_T);
    assert.equal(event.id, EVENT.id);
    await rejectsWith(
      verifyWebhook(BODY, `t=${T},${bad},${bad}`, SECRET, AT_T),
      'no_matching_signature',
    );
  });

  test('spaces around entries, unknown schemes and upper-case hex are tolerated', async () => {
    const hex = nodeHeader(BODY, SECRET, T).split('v1=')[1]!;
    const header = ` t=${T}, v0=deadbeef , v1=${hex.toUpperCase()} `;
    assert.equal((await verifyWebhook(BODY, header, SECRET, AT_T)).id, EVENT.id);
  });

  test('a v1 that is not 64 hex digits never matches', async () => {
    const hex = nodeHeader(BODY, SECRET, T).split('v1=')[1]!;
    for (const v1 of [hex.slice(0, 62), `${hex}00`, `${hex.slice(0, 63)}g`, '']) {
      await rejectsWith(
        verifyWebhook(BODY, `t=${T},v1=${v1}`, SECRET, AT_T),
        'no_matching_signature',
      );
    }
  });

  test('a malformed or missing header is rejected as malformed_header', async () => {
    const v1 = nodeHeader(BODY, SECRET, T).split(',')[1]!;
    const headers = [
      '',
      'garbage',
      v1, // no t
      `t=${T}`, // no v1
      `t=${T},v0=abc`, // no v1 either
      `t=abc,${v1}`,
      `t=-${T},${v1}`,
      `t=${T}.5,${v1}`,
      `t=${T},t=${T},${v1}`,
      `t=${T},${v1},`,
      `t=${T};${v1}`,
    ];
    for (const header of headers) {
      await rejectsWith(verifyWebhook(BODY, header, SECRET, AT_T), 'malformed_header');
    }
    await rejectsWith(verifyWebhook(BODY, undefined, SECRET, AT_T), 'malformed_header');
    await rejectsWith(verifyWebhook(BODY, null, SECRET, AT_T), 'malformed_header');
  });

  test('a Uint8Array body with non-ASCII UTF-8 verifies over its bytes', async () => {
    const bytes = new TextEncoder().encode(BODY);
    assert.notEqual(bytes.length, BODY.length);
    const header = nodeHeader(bytes, SECRET, T);
    assert.equal((await verifyWebhook(bytes, header, SECRET, AT_T)).id, EVENT.id);
    assert.equal((await verifyWebhook(Buffer.from(bytes), header, SECRET, AT_T)).id, EVENT.id);
    // The same text decoded with the wrong charset is different bytes.
    const latin1 = Buffer.from(bytes).toString('latin1');
    await rejectsWith(verifyWebhook(latin1, header, SECRET, AT_T), 'no_matching_signature');
  });

  test('a signed body that is not an event envelope is invalid_payload', async () => {
    for (const body of ['not json', '[]', 'null', '{"id":"evt_1","type":"x","createdAt":"y"}']) {
      await rejectsWith(
        verifyWebhook(body, nodeHeader(body, SECRET, T), SECRET, AT_T),
        'invalid_payload',
      );
    }
    const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    await rejectsWith(
      verifyWebhook(invalidUtf8, nodeHeader(invalidUtf8, SECRET, T), SECRET, AT_T),
      'invalid_payload',
    );
  });

  test('an empty secret is a TypeError, not a verification failure', async () => {
    await assert.rejects(verifyWebhook(BODY, nodeHeader(BODY, 'x', T), '', AT_T), TypeError);
  });

  test('the error is an Error named WebhookVerificationError', async () => {
    const error = await verifyWebhook(BODY, 'garbage', SECRET).catch((e: unknown) => e);
    assert.ok(error instanceof Error);
    assert.equal((error as Error).name, 'WebhookVerificationError');
  });
});

describe('standardWebhooksSignature', () => {
  const id = EVENT.id;

  test('is HMAC-SHA256 keyed with the base64-decoded secret, base64-encoded', async () => {
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${T}.${BODY}`).digest('base64');
    const signature = await standardWebhooksSignature(BODY, SECRET, { id, timestamp: T });
    assert.equal(signature, `v1,${expected}`);
  });

  test('the standardwebhooks package accepts the headers', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await standardWebhooksSignature(BODY, SECRET, { id, timestamp }),
    };
    assert.deepEqual(new Webhook(SECRET).verify(BODY, headers), EVENT);
    assert.throws(() => new Webhook(OTHER_SECRET).verify(BODY, headers), StandardError);
    assert.throws(() => new Webhook(SECRET).verify(`${BODY} `, headers), StandardError);
  });

  test('the standardwebhooks package accepts a rotation header listing both secrets', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await standardWebhooksSignature(BODY, [OTHER_SECRET, SECRET], {
      id,
      timestamp,
    });
    assert.match(signature, /^v1,\S+ v1,\S+$/);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    assert.deepEqual(new Webhook(SECRET).verify(BODY, headers), EVENT);
  });

  test('matches what the standardwebhooks package signs, Uint8Array body included', async () => {
    const date = new Date(T * 1000);
    const bytes = new TextEncoder().encode(BODY);
    assert.equal(
      await standardWebhooksSignature(bytes, SECRET, { id, timestamp: T }),
      new Webhook(SECRET).sign(id, date, BODY),
    );
  });

  test('a secret whose part after whsec_ is not base64 is a TypeError', async () => {
    await assert.rejects(
      standardWebhooksSignature(BODY, 'whsec_***', { id, timestamp: T }),
      TypeError,
    );
    await assert.rejects(
      standardWebhooksSignature(BODY, 'whsec_', { id, timestamp: T }),
      TypeError,
    );
  });
});
