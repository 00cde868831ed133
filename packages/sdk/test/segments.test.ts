import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  countSegments,
  isGsm7,
  SEGMENT_LIMITS,
  segmentCount,
  splitSegments,
} from '../src/segments.ts';

const GSM_BASIC_SAMPLE = '@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ!"#¤%&\'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà';
const GSM_EXTENSION = ['^', '{', '}', '\\', '[', ']', '~', '|', '€', '\f'];

describe('SMS encoding detection', () => {
  test('plain letters, digits, space and newline fit GSM-7', () => {
    assert.deepEqual(countSegments('Hello World 123\nBye'), {
      encoding: 'GSM-7',
      segments: 1,
      units: 19,
    });
  });

  test('every basic-table character, newline and carriage return cost one septet each', () => {
    for (const char of [...GSM_BASIC_SAMPLE, '\n', '\r']) {
      assert.deepEqual(
        countSegments(char),
        { encoding: 'GSM-7', segments: 1, units: 1 },
        `character ${JSON.stringify(char)}`,
      );
    }
    assert.equal(countSegments(GSM_BASIC_SAMPLE).units, [...GSM_BASIC_SAMPLE].length);
  });

  test('every extension-table character (and form feed) costs two septets', () => {
    for (const char of GSM_EXTENSION) {
      assert.deepEqual(
        countSegments(char),
        { encoding: 'GSM-7', segments: 1, units: 2 },
        `character ${JSON.stringify(char)}`,
      );
    }
  });

  test('a single non-GSM character switches the whole message to UCS-2', () => {
    assert.deepEqual(countSegments('Hello ć'), { encoding: 'UCS-2', segments: 1, units: 7 });
    assert.deepEqual(countSegments('Hi 😀'), { encoding: 'UCS-2', segments: 1, units: 5 });
  });

  test('in UCS-2, extension characters cost one unit like any other', () => {
    assert.deepEqual(countSegments('€{ć'), { encoding: 'UCS-2', segments: 1, units: 3 });
  });

  test('common lookalikes outside the GSM alphabet force UCS-2', () => {
    // Lowercase ç, accented a, curly apostrophe, tab, no-break space, ohm sign (not Greek Omega).
    for (const char of ['ç', 'á', '’', '\t', '\u00a0', '\u2126', '`']) {
      assert.equal(isGsm7(`ok ${char}`), false, `character ${JSON.stringify(char)}`);
    }
  });

  test('accented letters of the basic table stay GSM-7; others switch to UCS-2', () => {
    assert.deepEqual(countSegments('é'.repeat(70)), { encoding: 'GSM-7', segments: 1, units: 70 });
    assert.deepEqual(countSegments('ł'.repeat(70)), { encoding: 'UCS-2', segments: 1, units: 70 });
    assert.deepEqual(countSegments('ł'.repeat(71)), { encoding: 'UCS-2', segments: 2, units: 71 });
  });

  test('isGsm7 agrees with the encoding countSegments reports', () => {
    assert.equal(isGsm7('Price: 5€ [promo]'), true);
    assert.equal(isGsm7('Grüße aus Łódź'), false);
  });
});

describe('GSM-7 segments', () => {
  test('160 septets fit in one segment', () => {
    assert.deepEqual(countSegments('a'.repeat(160)), {
      encoding: 'GSM-7',
      segments: 1,
      units: 160,
    });
  });

  test('161 septets take two segments of at most 153', () => {
    assert.deepEqual(countSegments('a'.repeat(161)), {
      encoding: 'GSM-7',
      segments: 2,
      units: 161,
    });
  });

  test('306 septets fill exactly two parts; 307 take three', () => {
    assert.equal(segmentCount('a'.repeat(306)), 2);
    assert.equal(segmentCount('a'.repeat(307)), 3);
  });

  test('extension characters count double: 80 euro signs are one segment, 81 are two', () => {
    assert.deepEqual(countSegments('€'.repeat(80)), {
      encoding: 'GSM-7',
      segments: 1,
      units: 160,
    });
    assert.deepEqual(countSegments('€'.repeat(81)), {
      encoding: 'GSM-7',
      segments: 2,
      units: 162,
    });
  });

  test('an escape pair is never split: a "{" after 152 septets opens the next part', () => {
    const text = 'a'.repeat(152) + '{' + 'b'.repeat(152);
    // 306 septets would fit two parts if the pair could straddle the boundary.
    assert.deepEqual(countSegments(text), { encoding: 'GSM-7', segments: 3, units: 306 });
    const parts = splitSegments(text);
    assert.equal(parts[0], 'a'.repeat(152));
    assert.ok(parts[1]?.startsWith('{'));
  });

  test('an escape pair that fits exactly at septets 152-153 stays in the first part', () => {
    const parts = splitSegments('a'.repeat(151) + '{' + 'b'.repeat(8));
    assert.deepEqual(parts, ['a'.repeat(151) + '{', 'b'.repeat(8)]);
  });

  test('a text of only extension characters fits 76 per part once split', () => {
    assert.equal(segmentCount('€'.repeat(152)), 2);
    assert.equal(segmentCount('€'.repeat(153)), 3);
  });
});

describe('UCS-2 segments', () => {
  test('70 code units fit in one segment', () => {
    assert.deepEqual(countSegments('ć'.repeat(70)), {
      encoding: 'UCS-2',
      segments: 1,
      units: 70,
    });
  });

  test('71 code units take two segments of at most 67', () => {
    assert.deepEqual(countSegments('ć'.repeat(71)), {
      encoding: 'UCS-2',
      segments: 2,
      units: 71,
    });
  });

  test('134 code units fill exactly two parts; 135 take three', () => {
    assert.equal(segmentCount('ć'.repeat(134)), 2);
    assert.equal(segmentCount('ć'.repeat(135)), 3);
  });

  test('an emoji is a surrogate pair and counts as two units', () => {
    assert.deepEqual(countSegments('😀'.repeat(35)), {
      encoding: 'UCS-2',
      segments: 1,
      units: 70,
    });
    assert.deepEqual(countSegments('😀'.repeat(36)), {
      encoding: 'UCS-2',
      segments: 2,
      units: 72,
    });
  });

  test('a surrogate pair is never split: an emoji at units 67-68 opens the next part', () => {
    const text = 'a'.repeat(66) + '😀' + 'b'.repeat(66);
    // 134 units would fit two parts if the pair could straddle the boundary.
    assert.deepEqual(countSegments(text), { encoding: 'UCS-2', segments: 3, units: 134 });
    const parts = splitSegments(text);
    assert.equal(parts[0], 'a'.repeat(66));
    assert.ok(parts[1]?.startsWith('😀'));
  });

  test('an emoji that fits exactly at units 66-67 stays in the first part', () => {
    const parts = splitSegments('a'.repeat(65) + '😀' + 'b'.repeat(4));
    assert.deepEqual(parts, ['a'.repeat(65) + '😀', 'b'.repeat(4)]);
  });

  test('only-emoji text fits 33 per part once split', () => {
    assert.equal(segmentCount('😀'.repeat(66)), 2);
    assert.equal(segmentCount('😀'.repeat(67)), 3);
  });

  test('a joined emoji sequence counts every code unit it is made of', () => {
    // Man, ZWJ, woman, ZWJ, girl: three surrogate pairs and two joiners.
    assert.equal(countSegments('👨‍👩‍👧').units, 8);
  });
});

describe('empty text', () => {
  test('an empty body is zero segments and zero units; the caller decides for MMS', () => {
    assert.deepEqual(countSegments(''), { encoding: 'GSM-7', segments: 0, units: 0 });
    assert.equal(segmentCount(''), 0);
    assert.deepEqual(splitSegments(''), []);
  });
});

describe('splitting into parts', () => {
  const samples = [
    'short',
    'a'.repeat(161),
    'x'.repeat(100) + '€[]{}'.repeat(30),
    'ć'.repeat(200),
    '😀a'.repeat(90),
    'Ünïcödé ✓ '.repeat(40),
  ];

  test('the parts joined give back the original text', () => {
    for (const text of samples) assert.equal(splitSegments(text).join(''), text);
  });

  test('there are as many parts as segments counted', () => {
    for (const text of samples) assert.equal(splitSegments(text).length, segmentCount(text));
  });

  test('no part of a multi-part message exceeds the per-part limit of its encoding', () => {
    for (const text of samples) {
      const { encoding, segments } = countSegments(text);
      if (segments < 2) continue;
      for (const part of splitSegments(text)) {
        // Each part alone is pure GSM-7 or, for UCS-2 texts, measured in code units.
        const size = encoding === 'GSM-7' ? countSegments(part).units : part.length;
        assert.ok(size <= SEGMENT_LIMITS[encoding].multipart, `${encoding} part of ${size}`);
      }
    }
  });

  test('no part begins with a lone low surrogate', () => {
    for (const text of samples) {
      for (const part of splitSegments(text)) {
        const first = part.charCodeAt(0);
        assert.ok(!(first >= 0xdc00 && first <= 0xdfff), 'part starts mid surrogate pair');
      }
    }
  });
});
