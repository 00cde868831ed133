import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildDeepLink, type DeepLinkInput } from '../src/deep-links.ts';

const TO = '+14155550123';
const FROM = '+12125550100';
const TO_ENC = '%2B14155550123';
const FROM_ENC = '%2B12125550100';

describe('buildDeepLink', () => {
  test('writes the + of numbers as %2B and the parameters in the spec order', () => {
    assert.equal(
      buildDeepLink({ action: 'sms', to: TO, from: FROM, body: 'Hello there' }),
      `switchboard://sms?to=${TO_ENC}&from=${FROM_ENC}&body=Hello%20there`,
    );
  });

  test('percent-encodes every body character that means something in a URL', () => {
    const link = buildDeepLink({ action: 'sms', to: TO, body: '1+1=2 & #3 ?%' });
    assert.equal(link, `switchboard://sms?to=${TO_ENC}&body=1%2B1%3D2%20%26%20%233%20%3F%25`);
  });

  test('ad=1 only when autoDial is true; absent otherwise', () => {
    assert.equal(
      buildDeepLink({ action: 'call', to: TO, autoDial: true }),
      `switchboard://call?to=${TO_ENC}&ad=1`,
    );
    assert.equal(
      buildDeepLink({ action: 'call', to: TO, autoDial: false }),
      `switchboard://call?to=${TO_ENC}`,
    );
    assert.equal(buildDeepLink({ action: 'call', to: TO }), `switchboard://call?to=${TO_ENC}`);
  });

  test('the scheme option changes the scheme', () => {
    assert.equal(
      buildDeepLink({ action: 'sms', to: TO }, { scheme: 'acme-phone' }),
      `acme-phone://sms?to=${TO_ENC}`,
    );
  });

  test('webOrigin builds the web softphone form on that origin', () => {
    assert.equal(
      buildDeepLink(
        { action: 'call', to: TO, autoDial: true },
        { webOrigin: 'https://phone.example.com/ignored' },
      ),
      `https://phone.example.com/app/link?action=call&to=${TO_ENC}&ad=1`,
    );
  });

  test('a to or from that is not E.164 throws, since the app would drop the link', () => {
    assert.throws(() => buildDeepLink({ action: 'sms', to: '4155550123' }), TypeError);
    assert.throws(() => buildDeepLink({ action: 'call', to: '+1 415 555 0123' }), TypeError);
    assert.throws(() => buildDeepLink({ action: 'sms', to: TO, from: 'main' }), TypeError);
  });

  test('an unknown action throws', () => {
    const input = { action: 'fax', to: TO } as unknown as DeepLinkInput;
    assert.throws(() => buildDeepLink(input), /action must be one of call, sms/);
  });

  test('a scheme the URL parser treats specially, or no scheme at all, throws', () => {
    for (const scheme of ['https', 'http', 'file', '', '1app', 'my app']) {
      assert.throws(() => buildDeepLink({ action: 'sms', to: TO }, { scheme }), TypeError, scheme);
    }
    assert.throws(
      () => buildDeepLink({ action: 'sms', to: TO }, { webOrigin: 'ftp://x' }),
      TypeError,
    );
  });

  test('the body is cut at 1000 code points without splitting a surrogate pair', () => {
    const link = buildDeepLink({ action: 'sms', to: TO, body: 'a'.repeat(999) + '😀' + 'more' });
    assert.ok(link.endsWith(`&body=${'a'.repeat(999)}%F0%9F%98%80`));
  });

  test('a lone surrogate in the body becomes U+FFFD instead of throwing', () => {
    const link = buildDeepLink({ action: 'sms', to: TO, body: 'x\uD83Dy' });
    assert.ok(link.endsWith('&body=x%EF%BF%BDy'));
  });

  test('an empty body is left out', () => {
    assert.equal(
      buildDeepLink({ action: 'sms', to: TO, body: '' }),
      `switchboard://sms?to=${TO_ENC}`,
    );
  });
});
