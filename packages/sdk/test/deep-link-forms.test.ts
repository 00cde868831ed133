import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDeepLink } from '../src/deep-links.ts';

const TO = '+14155550123';
const TO_ENC = '%2B14155550123';

describe('parseDeepLink: link forms', () => {
  const expected = { action: 'sms', to: TO, body: 'hi' };

  test('<scheme>:sms without slashes is the same link', () => {
    assert.deepEqual(parseDeepLink(`switchboard:sms?to=${TO_ENC}&body=hi`), expected);
  });

  test('a trailing slash after the action is tolerated', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms/?to=${TO_ENC}&body=hi`), expected);
  });

  test('anything else in the path makes the action unknown', () => {
    assert.equal(parseDeepLink(`switchboard://sms/extra?to=${TO_ENC}`), null);
    assert.equal(parseDeepLink(`switchboard:///sms?to=${TO_ENC}`), null);
    assert.equal(parseDeepLink(`switchboard://user@sms?to=${TO_ENC}`), null);
  });

  test('web+switchboard: in both the opaque and the // form', () => {
    assert.deepEqual(parseDeepLink(`web+switchboard:sms?to=${TO_ENC}&body=hi`), expected);
    assert.deepEqual(parseDeepLink(`web+switchboard://sms?to=${TO_ENC}&body=hi`), expected);
  });

  test('the web softphone form https://HOST/app/link?action=…', () => {
    assert.deepEqual(
      parseDeepLink(`https://phone.example.com/app/link?action=sms&to=${TO_ENC}&body=hi`),
      expected,
    );
    assert.deepEqual(
      parseDeepLink(`http://127.0.0.1:8080/app/link/?action=call&to=${TO_ENC}&ad=1`),
      { action: 'call', to: TO, autoDial: true },
    );
  });

  test('the web form drops an unknown action, another path, or no action at all', () => {
    assert.equal(parseDeepLink(`https://h.example/app/link?action=fax&to=${TO_ENC}`), null);
    assert.equal(parseDeepLink(`https://h.example/app/other?action=sms&to=${TO_ENC}`), null);
    assert.equal(parseDeepLink(`https://h.example/app/link?to=${TO_ENC}`), null);
  });

  test('the URL a browser opens for the web+switchboard protocol handler (?uri=%s)', () => {
    const handed = `web+switchboard:sms?to=${TO_ENC}&body=hi`;
    const opened = `https://phone.example.com/app/link?uri=${encodeURIComponent(handed)}`;
    assert.deepEqual(parseDeepLink(opened), expected);
  });

  test('a web link nested in uri= is dropped', () => {
    const inner = `https://h.example/app/link?action=sms&to=${TO_ENC}`;
    assert.equal(
      parseDeepLink(`https://h.example/app/link?uri=${encodeURIComponent(inner)}`),
      null,
    );
  });

  test('another scheme is not a deep link', () => {
    assert.equal(parseDeepLink(`sms:${TO}`), null);
    assert.equal(parseDeepLink(`tel:${TO}`), null);
    assert.equal(parseDeepLink(`otherapp://sms?to=${TO_ENC}`), null);
    assert.equal(parseDeepLink(`web+other:sms?to=${TO_ENC}`), null);
  });

  test('a configured scheme replaces switchboard, and its web+ form follows', () => {
    const options = { scheme: 'acme-phone' };
    assert.deepEqual(parseDeepLink(`acme-phone://sms?to=${TO_ENC}&body=hi`, options), expected);
    assert.deepEqual(parseDeepLink(`web+acme-phone:sms?to=${TO_ENC}&body=hi`, options), expected);
    assert.equal(parseDeepLink(`switchboard://sms?to=${TO_ENC}`, options), null);
  });

  test('text that is not a URL is dropped, not thrown', () => {
    assert.equal(parseDeepLink(''), null);
    assert.equal(parseDeepLink('sms to +14155550123'), null);
  });

  test('a URL object is accepted as well as a string', () => {
    assert.deepEqual(parseDeepLink(new URL(`switchboard://sms?to=${TO_ENC}&body=hi`)), expected);
  });
});
