import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildDeepLink,
  DEEP_LINK_BODY_MAX,
  parseDeepLink,
  type DeepLink,
  type DeepLinkInput,
  type DeepLinkOptions,
} from '../src/deep-links.ts';

const TO = '+14155550123';
const FROM = '+12125550100';
const TO_ENC = '%2B14155550123';
const FROM_ENC = '%2B12125550100';

const codePoints = (text: string): number => [...text].length;

describe('parseDeepLink: the spec 4.6 table', () => {
  test('action sms opens a draft to the E.164 recipient', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms?to=${TO_ENC}`), { action: 'sms', to: TO });
  });

  test('action call opens a call that asks before dialling', () => {
    assert.deepEqual(parseDeepLink(`switchboard://call?to=${TO_ENC}`), {
      action: 'call',
      to: TO,
      autoDial: false,
    });
  });

  test('an unknown action is dropped', () => {
    assert.equal(parseDeepLink(`switchboard://fax?to=${TO_ENC}`), null);
    assert.equal(parseDeepLink(`switchboard://send?to=${TO_ENC}&body=hi`), null);
    assert.equal(parseDeepLink(`switchboard://?to=${TO_ENC}`), null);
  });

  test('the action is matched case-insensitively, like a host', () => {
    assert.deepEqual(parseDeepLink(`switchboard://SMS?to=${TO_ENC}`), { action: 'sms', to: TO });
  });

  test('to is required: a link without it is dropped', () => {
    assert.equal(parseDeepLink('switchboard://sms'), null);
    assert.equal(parseDeepLink('switchboard://call?ad=1'), null);
    assert.equal(parseDeepLink('switchboard://sms?to='), null);
  });

  test('a to that is not E.164 is dropped', () => {
    for (const to of [
      '4155550123', // no +
      '%2B04155550123', // country code 0
      '%2B12345', // too short
      '%2B1234567890123456', // 16 digits
      '%2B1%20415%20555%200123', // spaces
      '%2B1-415-555-0123', // punctuation
      '%2B1415555O123', // letter O
    ]) {
      assert.equal(parseDeepLink(`switchboard://sms?to=${to}`), null, to);
    }
  });

  test('to accepts the + encoded as %2B in either case', () => {
    assert.equal(parseDeepLink(`switchboard://sms?to=%2b14155550123`)?.to, TO);
  });

  test('a literal + in to is the plus of the number, not a form-encoded space', () => {
    assert.deepEqual(parseDeepLink('switchboard://sms?to=+14155550123&from=+12125550100'), {
      action: 'sms',
      to: TO,
      from: FROM,
    });
  });

  test('an encoded space is not taken for the plus', () => {
    assert.equal(parseDeepLink('switchboard://sms?to=%2014155550123'), null);
  });

  test('from picks the sending line of an sms', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms?to=${TO_ENC}&from=${FROM_ENC}`), {
      action: 'sms',
      to: TO,
      from: FROM,
    });
  });

  test('an invalid from is ignored and the sms link kept', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms?to=${TO_ENC}&from=12125550100`), {
      action: 'sms',
      to: TO,
    });
  });

  test('from on a call is parsed but ignored', () => {
    assert.deepEqual(parseDeepLink(`switchboard://call?to=${TO_ENC}&from=${FROM_ENC}`), {
      action: 'call',
      to: TO,
      autoDial: false,
    });
  });

  test('ad=1 on a call auto-dials', () => {
    assert.equal((parseDeepLink(`switchboard://call?to=${TO_ENC}&ad=1`) as any).autoDial, true);
  });

  test('ad=0, an absent ad, or any other ad value keeps the confirmation prompt', () => {
    for (const ad of ['&ad=0', '', '&ad=true', '&ad=yes', '&ad=', '&ad=2']) {
      const link = parseDeepLink(`switchboard://call?to=${TO_ENC}${ad}`);
      assert.deepEqual(link, { action: 'call', to: TO, autoDial: false }, ad);
    }
  });

  test('ad on an sms is ignored', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms?to=${TO_ENC}&ad=1`), {
      action: 'sms',
      to: TO,
    });
  });

  test('body fills the sms draft, percent- and form-decoded', () => {
    const link = parseDeepLink(
      `switchboard://sms?to=${TO_ENC}&body=See%20you+at%207%3A30%3F%0A1%2B1%3D2%20%F0%9F%98%80`,
    );
    assert.deepEqual(link, { action: 'sms', to: TO, body: 'See you at 7:30?\n1+1=2 😀' });
  });

  test('body on a call is ignored', () => {
    assert.deepEqual(parseDeepLink(`switchboard://call?to=${TO_ENC}&ad=1&body=hello`), {
      action: 'call',
      to: TO,
      autoDial: true,
    });
  });

  test('an empty body is no body', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms?to=${TO_ENC}&body=`), {
      action: 'sms',
      to: TO,
    });
  });

  test('body is cut at 1000 code points without splitting a surrogate pair', () => {
    // A UTF-16 cut at 1000 units would keep only the high half of the emoji.
    const text = 'a'.repeat(999) + '😀' + 'more text';
    const link = parseDeepLink(`switchboard://sms?to=${TO_ENC}&body=${encodeURIComponent(text)}`);
    assert.equal(link?.action, 'sms');
    const body = (link as { body: string }).body;
    assert.equal(body, 'a'.repeat(999) + '😀');
    assert.equal(codePoints(body), DEEP_LINK_BODY_MAX);
    assert.equal(body.length, 1001);
    assert.ok(body.isWellFormed());
  });

  test('body cutting counts an astral character as one code point, not two units', () => {
    const text = '😀'.repeat(1200);
    const link = parseDeepLink(`switchboard://sms?to=${TO_ENC}&body=${encodeURIComponent(text)}`);
    assert.equal((link as { body: string }).body, '😀'.repeat(1000));
  });

  test('a body of exactly 1000 code points is kept whole', () => {
    const text = 'b'.repeat(998) + '😀😀';
    const link = parseDeepLink(`switchboard://sms?to=${TO_ENC}&body=${encodeURIComponent(text)}`);
    assert.equal((link as { body: string }).body, text);
  });

  test('the first of repeated parameters wins', () => {
    assert.equal(parseDeepLink(`switchboard://sms?to=${TO_ENC}&to=${FROM_ENC}`)?.to, TO);
  });

  test('the fragment is ignored', () => {
    assert.deepEqual(parseDeepLink(`switchboard://sms?to=${TO_ENC}#body=x`), {
      action: 'sms',
      to: TO,
    });
  });
});

describe('buildDeepLink then parseDeepLink', () => {
  const cases: [DeepLinkInput, DeepLink][] = [
    [
      { action: 'sms', to: TO },
      { action: 'sms', to: TO },
    ],
    [
      { action: 'sms', to: TO, from: FROM, body: 'Line one\nLine two: 50% off + free 🚚 & more' },
      { action: 'sms', to: TO, from: FROM, body: 'Line one\nLine two: 50% off + free 🚚 & more' },
    ],
    [
      { action: 'sms', to: '+447911123456', body: 'é'.repeat(1500) },
      { action: 'sms', to: '+447911123456', body: 'é'.repeat(1000) },
    ],
    [
      { action: 'call', to: TO },
      { action: 'call', to: TO, autoDial: false },
    ],
    [
      { action: 'call', to: TO, autoDial: true },
      { action: 'call', to: TO, autoDial: true },
    ],
  ];
  const forms: [string, DeepLinkOptions][] = [
    ['default scheme', {}],
    ['configured scheme', { scheme: 'acme-phone' }],
    ['web form', { webOrigin: 'https://phone.example.com' }],
  ];

  for (const [name, options] of forms) {
    test(`every link round-trips to what it was built from (${name})`, () => {
      for (const [input, expected] of cases) {
        const link = buildDeepLink(input, options);
        assert.deepEqual(parseDeepLink(link, { scheme: options.scheme }), expected, link);
      }
    });
  }

  test('the round-tripped body never exceeds the cap', () => {
    const link = buildDeepLink({ action: 'sms', to: TO, body: '😀x'.repeat(800) });
    const body = (parseDeepLink(link) as { body: string }).body;
    assert.equal(codePoints(body), DEEP_LINK_BODY_MAX);
    assert.ok(body.isWellFormed());
  });
});
