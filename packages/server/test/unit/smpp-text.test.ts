import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { countSegments, isGsm7 } from '@switchboard/sdk/segments';
import {
  decodeGsm7,
  decodeUcs2,
  encodeGsm7,
  encodeText,
  encodeUcs2,
  isGsmEncodable,
} from '../../src/carriers/smpp/gsm7.ts';
import { splitUdh, textParts } from '../../src/carriers/smpp/message-text.ts';

/** Characters from every corner that matters: GSM basic, extension, Latin-1 outside GSM, BMP, astral. */
const MIXED = [...'aZ09 @£$\n€[]{}~^\\|\féñüΔΩ', 'ç', 'ł', 'Ж', '中', '😀', '👍🏽', '𝄞'];

const mixedText = fc
  .array(fc.oneof(fc.constantFrom(...MIXED), fc.constantFrom(...'abcdefghij ')), {
    maxLength: 500,
  })
  .map((chars) => chars.join(''));

const gsmText = fc
  .array(fc.constantFrom(...'abcXYZ019 @£$\n€[]{}~^\\|\féñüΔΩ'), { maxLength: 700 })
  .map((chars) => chars.join(''));

/** The characters of a part, checked to be whole: no lone surrogate, no trailing escape. */
function decodePart(bytes: Buffer, encoding: 'GSM-7' | 'UCS-2'): string {
  if (encoding === 'GSM-7') {
    assert.notEqual(bytes[bytes.length - 1], 0x1b, 'a part ends with a lone escape');
    return decodeGsm7(bytes);
  }
  const text = decodeUcs2(bytes);
  assert.doesNotMatch(
    text,
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
  );
  return text;
}

describe('GSM 03.38 and UCS-2', () => {
  it('writes each extension character as the escape and its code: two septets', () => {
    for (const [char, code] of [
      ['€', 0x65],
      ['[', 0x3c],
      [']', 0x3e],
      ['{', 0x28],
      ['}', 0x29],
      ['~', 0x3d],
      ['^', 0x14],
      ['\\', 0x2f],
      ['|', 0x40],
    ] as const) {
      assert.deepEqual([...encodeGsm7(char)!], [0x1b, code], char);
      assert.equal(countSegments(char).units, 2, `${char} counts two septets`);
      assert.equal(decodeGsm7(Buffer.from([0x1b, code])), char);
    }
  });

  it('writes the default alphabet one septet per octet, unpacked', () => {
    assert.deepEqual([...encodeGsm7('@£$Hi\n')!], [0x00, 0x01, 0x02, 0x48, 0x69, 0x0a]);
    assert.equal(encodeGsm7('ł'), null);
  });

  it('reads back what it writes, for any GSM text', () => {
    fc.assert(fc.property(gsmText, (text) => assert.equal(decodeGsm7(encodeGsm7(text)!), text)));
  });

  it('reads an escape to a code the extension table lacks as the default character', () => {
    assert.equal(decodeGsm7(Buffer.from([0x1b, 0x41, 0x42])), 'AB');
    assert.equal(decodeGsm7(Buffer.from([0x41, 0x1b])), 'A', 'a lone escape at the end is dropped');
  });

  it('writes UCS-2 big-endian and keeps an emoji a surrogate pair', () => {
    assert.equal(encodeUcs2('A😀').toString('hex'), '0041d83dde00');
    assert.equal(decodeUcs2(Buffer.from('0041d83dde00', 'hex')), 'A😀');
    assert.equal(decodeUcs2(Buffer.from('004100', 'hex')), 'A', 'an odd octet is dropped');
  });

  it('calls a text GSM exactly when the segment counter does', () => {
    fc.assert(fc.property(mixedText, (text) => assert.equal(isGsmEncodable(text), isGsm7(text))));
  });
});

describe('texts cut into parts', () => {
  it('picks the encoding and the number of parts that countSegments counts', () => {
    fc.assert(
      fc.property(fc.oneof(mixedText, gsmText), (text) => {
        const encoded = encodeText(text);
        const counted = countSegments(text);
        assert.equal(encoded.encoding, counted.encoding);
        assert.equal(encoded.parts.length, counted.segments);
        assert.equal(encoded.units, counted.units);
      }),
      { numRuns: 500 },
    );
  });

  it('never splits an escape pair or a surrogate pair, and the parts join to the text', () => {
    fc.assert(
      fc.property(fc.oneof(mixedText, gsmText), (text) => {
        const { encoding, parts } = encodeText(text);
        const unit = encoding === 'GSM-7' ? 1 : 2;
        const limit = parts.length > 1 ? (encoding === 'GSM-7' ? 153 : 67) : Infinity;
        const decoded = parts.map((part) => {
          assert.ok(part.length / unit <= limit, `a part of ${part.length / unit} units`);
          return decodePart(part, encoding);
        });
        assert.equal(decoded.join(''), text);
      }),
      { numRuns: 500 },
    );
  });

  it('fills parts to the edge: 153 septets, one more opens a part, an escape pair never straddles', () => {
    assert.equal(encodeText('a'.repeat(160)).parts.length, 1);
    assert.deepEqual(
      encodeText('a'.repeat(161)).parts.map((p) => p.length),
      [153, 8],
    );
    // 152 septets then '€': the pair does not fit in the first part, which stays one short.
    assert.deepEqual(
      encodeText('a'.repeat(152) + '€' + 'a'.repeat(10)).parts.map((p) => p.length),
      [152, 12],
    );
  });

  it('fills UCS-2 parts with 67 code units, keeping each emoji whole', () => {
    const text = '😀'.repeat(40);
    const { parts } = encodeText(text);
    assert.deepEqual(
      parts.map((p) => p.length / 2),
      [66, 14],
      'an odd 67th unit would split a pair',
    );
  });

  it('gives every part a concatenation UDH with one reference, and UDHI in esm_class', () => {
    const parts = textParts('Ж'.repeat(150), 'udh', 0x2a);
    assert.equal(parts.length, 3);
    parts.forEach((part, index) => {
      assert.equal(part.esmClass, 0x40);
      assert.equal(part.dataCoding, 8);
      assert.deepEqual([...part.shortMessage.subarray(0, 6)], [5, 0, 3, 0x2a, 3, index + 1]);
      const split = splitUdh(part.shortMessage);
      assert.ok(split.ok);
      assert.deepEqual(split.concat, { reference: 0x2a, total: 3, seq: index + 1 });
    });
  });

  it('puts a long text whole in message_payload when the connection says so', () => {
    const text = 'hello €'.repeat(40);
    const [part, ...rest] = textParts(text, 'payload', 1);
    assert.equal(rest.length, 0);
    assert.equal(part!.esmClass, 0);
    assert.equal(part!.shortMessage.length, 0);
    assert.equal(decodeGsm7(part!.tlvs.messagePayload!), text);
  });

  it('sends a text that fits one SMS in short_message, with no header, in either mode', () => {
    for (const mode of ['udh', 'payload'] as const) {
      const parts = textParts('hi 😀', mode, 1);
      assert.equal(parts.length, 1);
      assert.equal(parts[0]!.esmClass, 0);
      assert.equal(parts[0]!.shortMessage.toString('hex'), '006800690020d83dde00');
    }
    assert.deepEqual(textParts('', 'udh', 1), []);
  });
});
