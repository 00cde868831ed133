// Switchboard's X-Twilio-Signature check agrees with the official `twilio` package's
// validateRequest, for any URL and any parameters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import twilio from 'twilio';
import {
  twilioSignature,
  verifyTwilioSignature,
} from '../../src/carriers/twilio/twilio-signature.ts';
import {
  twilioApiFailure,
  twilioDeliveryFailure,
} from '../../src/carriers/twilio/twilio-errors.ts';

const TOKEN = '0123456789abcdef0123456789abcdef';
const params = fc.dictionary(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  { maxKeys: 12 },
);
const url = fc.webUrl({ withQueryParameters: true }).filter((u) => !u.includes('#'));

test('a signature Switchboard makes is one twilio.validateRequest accepts', () => {
  fc.assert(
    fc.property(url, params, (u, p) => {
      const signature = twilioSignature(TOKEN, u, Object.entries(p));
      assert.equal(twilio.validateRequest(TOKEN, signature, u, p), true);
    }),
    { numRuns: 200 },
  );
});

test("a signature twilio's library makes verifies here, and not with another token or another body", () => {
  fc.assert(
    fc.property(url, params, (u, p) => {
      const signature = twilio.getExpectedTwilioSignature(TOKEN, u, p);
      assert.equal(verifyTwilioSignature(TOKEN, u, Object.entries(p), signature), true);
      assert.equal(verifyTwilioSignature(`${TOKEN}x`, u, Object.entries(p), signature), false);
      const altered = [...Object.entries(p), ['Injected', 'yes'] as const];
      assert.equal(verifyTwilioSignature(TOKEN, u, altered, signature), false);
      assert.equal(verifyTwilioSignature(TOKEN, u, Object.entries(p), undefined), false);
    }),
    { numRuns: 200 },
  );
});

test("Twilio's error codes map to failure reasons: a bad number, an opt-out, an unreachable handset, else a rejection", () => {
  assert.equal(twilioApiFailure(21211), 'invalid_number');
  assert.equal(twilioApiFailure(21614), 'invalid_number');
  assert.equal(twilioApiFailure(21610), 'opted_out');
  assert.equal(twilioApiFailure(21606), 'carrier_rejected');
  assert.equal(twilioApiFailure(null), 'carrier_rejected');
  assert.equal(twilioDeliveryFailure(30005), 'invalid_number');
  assert.equal(twilioDeliveryFailure(30006), 'invalid_number');
  assert.equal(twilioDeliveryFailure(30003), 'unreachable');
  assert.equal(twilioDeliveryFailure(30007), 'carrier_rejected');
  assert.equal(twilioDeliveryFailure(null), 'carrier_rejected');
});
