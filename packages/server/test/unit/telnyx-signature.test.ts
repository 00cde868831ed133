// Switchboard's check of `telnyx-signature-ed25519` agrees with the official `telnyx`
// package's webhook verification: the same callbacks pass, the same forged, altered or
// stale ones are refused.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { TelnyxWebhook } from 'telnyx/lib/webhooks';
import {
  telnyxPublicKey,
  verifyTelnyxSignature,
} from '../../src/carriers/telnyx/telnyx-signature.ts';
import { telnyxFailure } from '../../src/carriers/telnyx/telnyx-errors.ts';

const pair = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const rawPublic = (key: typeof pair.publicKey) =>
  (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(12).toString('base64');
const PUBLIC = rawPublic(pair.publicKey);

const signed = (body: string, timestamp: string, key = pair.privateKey) =>
  sign(null, Buffer.from(`${timestamp}|${body}`), key).toString('base64');

async function theirs(body: string, headers: Record<string, string>): Promise<boolean> {
  try {
    await new TelnyxWebhook(PUBLIC).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

const ours = (body: string, headers: Record<string, string>) =>
  verifyTelnyxSignature(
    telnyxPublicKey(PUBLIC),
    body,
    headers['telnyx-timestamp'],
    headers['telnyx-signature-ed25519'],
    Date.now(),
  );

test("a callback signed as Telnyx signs passes both Switchboard's check and telnyx's own", async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 300 }), async (body) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers = {
        'telnyx-timestamp': timestamp,
        'telnyx-signature-ed25519': signed(body, timestamp),
      };
      assert.equal(ours(body, headers), true);
      assert.equal(await theirs(body, headers), true);
    }),
    { numRuns: 100 },
  );
});

test('an altered body, another key, a moved timestamp or a stale one is refused by both', async () => {
  const body = '{"data":{"event_type":"message.finalized"}}';
  const now = Math.floor(Date.now() / 1000);
  const cases: Record<string, string>[] = [
    {
      'telnyx-timestamp': String(now),
      'telnyx-signature-ed25519': signed(`${body} `, String(now)),
    },
    {
      'telnyx-timestamp': String(now),
      'telnyx-signature-ed25519': signed(body, String(now), other.privateKey),
    },
    { 'telnyx-timestamp': String(now + 1), 'telnyx-signature-ed25519': signed(body, String(now)) },
    {
      'telnyx-timestamp': String(now - 301),
      'telnyx-signature-ed25519': signed(body, String(now - 301)),
    },
    {
      'telnyx-timestamp': String(now + 301),
      'telnyx-signature-ed25519': signed(body, String(now + 301)),
    },
    { 'telnyx-timestamp': String(now) },
    { 'telnyx-timestamp': 'soon', 'telnyx-signature-ed25519': signed(body, 'soon') },
  ];
  for (const headers of cases) {
    assert.equal(ours(body, headers), false, JSON.stringify(headers));
    assert.equal(await theirs(body, headers), false, JSON.stringify(headers));
  }
});

test("Telnyx's error codes map to failure reasons: not routable or an invalid to, unreachable, opted out, else a rejection", () => {
  assert.equal(telnyxFailure('40001'), 'invalid_number');
  assert.equal(telnyxFailure('40310'), 'invalid_number');
  assert.equal(telnyxFailure('40006'), 'unreachable');
  assert.equal(telnyxFailure('40300'), 'opted_out');
  assert.equal(telnyxFailure('40003'), 'carrier_rejected');
  assert.equal(telnyxFailure(null), 'carrier_rejected');
});
