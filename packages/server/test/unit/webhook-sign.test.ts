import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeaders } from '../../src/delivery/sign.ts';

// Fixed secrets so a failure message is reproducible; both decode to 32 bytes.
const SECRET_A = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
const SECRET_B = 'whsec_' + Buffer.alloc(32, 0xab).toString('base64');
const EVENT_ID = 'evt_01JABCDEFGHJKMNPQRSTVWXYZ';
const BODY =
  '{"id":"evt_01JABCDEFGHJKMNPQRSTVWXYZ","type":"message.received","data":{"body":"héllo ✓"}}';

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('webhook secrets', () => {
  test('a new secret is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  });

  test('two new secrets differ', () => {
    assert.notEqual(newWebhookSecret(), newWebhookSecret());
  });
});

describe('X-Service-Signature', () => {
  test('v1 is HMAC-SHA256 keyed with the whole secret string over "<t>.<body>"', () => {
    const timestamp = 1_736_942_400;
    const headers = signatureHeaders({
      eventId: EVENT_ID,
      timestamp,
      body: BODY,
      secrets: [SECRET_A],
    });
    const expected = createHmac('sha256', Buffer.from(SECRET_A, 'utf8'))
      .update(Buffer.from(`${timestamp}.${BODY}`, 'utf8'))
      .digest('hex');
    assert.equal(headers['X-Service-Signature'], `t=${timestamp},v1=${expected}`);
  });

  test('during a rotation the header carries one v1 per secret, current first', () => {
    const timestamp = 1_736_942_400;
    const both = signatureHeaders({
      eventId: EVENT_ID,
      timestamp,
      body: BODY,
      secrets: [SECRET_A, SECRET_B],
    });
    const parts = both['X-Service-Signature'].split(',');
    assert.equal(parts.length, 3);
    assert.equal(parts[0], `t=${timestamp}`);
    const only = (secret: string) =>
      signatureHeaders({ eventId: EVENT_ID, timestamp, body: BODY, secrets: [secret] })[
        'X-Service-Signature'
      ].split(',')[1];
    assert.equal(parts[1], only(SECRET_A));
    assert.equal(parts[2], only(SECRET_B));
    assert.notEqual(parts[1], parts[2]);
  });

  test('a one-character change of the body changes the signature', () => {
    const sign = (body: string) =>
      signatureHeaders({ eventId: EVENT_ID, timestamp: 1, body, secrets: [SECRET_A] })[
        'X-Service-Signature'
      ];
    assert.notEqual(sign(BODY), sign(BODY.replace('é', 'e')));
  });
});

describe('Standard Webhooks headers', () => {
  test('webhook-id is the event id and webhook-timestamp the unix seconds', () => {
    const headers = signatureHeaders({
      eventId: EVENT_ID,
      timestamp: 1_736_942_400,
      body: BODY,
      secrets: [SECRET_A],
    });
    assert.equal(headers['webhook-id'], EVENT_ID);
    assert.equal(headers['webhook-timestamp'], '1736942400');
  });

  test('the signature is keyed with the decoded secret over "<id>.<timestamp>.<body>"', () => {
    const timestamp = 1_736_942_400;
    const headers = signatureHeaders({
      eventId: EVENT_ID,
      timestamp,
      body: BODY,
      secrets: [SECRET_A],
    });
    const expected = createHmac('sha256', Buffer.alloc(32, 1))
      .update(`${EVENT_ID}.${timestamp}.${BODY}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);
  });

  test('the standardwebhooks package verifies the headers with each secret of a rotation', () => {
    const headers = signatureHeaders({
      eventId: EVENT_ID,
      timestamp: nowSeconds(),
      body: BODY,
      secrets: [SECRET_A, SECRET_B],
    });
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [SECRET_A, SECRET_B]) {
      const payload = new Webhook(secret).verify(BODY, { ...headers });
      assert.deepEqual(payload, JSON.parse(BODY));
    }
  });

  test('the standardwebhooks package rejects a secret that did not sign', () => {
    const headers = signatureHeaders({
      eventId: EVENT_ID,
      timestamp: nowSeconds(),
      body: BODY,
      secrets: [SECRET_A],
    });
    assert.throws(() => new Webhook(SECRET_B).verify(BODY, { ...headers }), /signature/i);
  });

  test('the standardwebhooks package rejects a tampered body', () => {
    const headers = signatureHeaders({
      eventId: EVENT_ID,
      timestamp: nowSeconds(),
      body: BODY,
      secrets: [SECRET_A],
    });
    assert.throws(() => new Webhook(SECRET_A).verify(BODY + ' ', { ...headers }), /signature/i);
  });
});

describe('signing input checks', () => {
  test('signing refuses to run without a secret', () => {
    assert.throws(
      () => signatureHeaders({ eventId: EVENT_ID, timestamp: 1, body: BODY, secrets: [] }),
      RangeError,
    );
  });

  test('a secret without the whsec_ prefix or with broken base64 is refused', () => {
    for (const secret of ['sk_live_abc', 'whsec_not base64!', 'whsec_']) {
      assert.throws(
        () => signatureHeaders({ eventId: EVENT_ID, timestamp: 1, body: BODY, secrets: [secret] }),
        RangeError,
        secret,
      );
    }
  });

  test('a timestamp that is not whole unix seconds is refused', () => {
    for (const timestamp of [1.5, Date.now(), -1]) {
      assert.throws(
        () => signatureHeaders({ eventId: EVENT_ID, timestamp, body: BODY, secrets: [SECRET_A] }),
        RangeError,
        String(timestamp),
      );
    }
  });

  test('an event id that could split a header is refused', () => {
    assert.throws(
      () =>
        signatureHeaders({
          eventId: 'evt_1\r\nX: y',
          timestamp: 1,
          body: BODY,
          secrets: [SECRET_A],
        }),
      RangeError,
    );
  });
});
