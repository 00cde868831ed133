import fc from 'fast-check';

/** Keys that mean something to JavaScript objects, and some that look like a field but are not. */
const TRICKY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  '$ref',
  'text',
  'FROM',
  'body ',
  'id',
];

/** Strings of every kind a field should never choke on. */
export const junkString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '+1415555\u00000100',
    '👍🏽🇫🇷👨‍👩‍👧',
    '\ud800',
    '\udfff\ud800',
    '\u202e\u200b',
    '5',
    '-1',
    '1e309',
    'NaN',
    'true',
    'null',
    '[]',
    '{}',
    '../../etc/passwd',
    "'; drop table contacts; --",
    '%00%zz',
    '<script>alert(1)</script>',
  ),
  // Huge: some fit the body limit (256 KB), some do not.
  fc
    .tuple(fc.constantFrom('a', 'é', '😀', '\u0000', ' '), fc.integer({ min: 1_000, max: 300_000 }))
    .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length))),
);

/** An object with an own key of any name, `__proto__` included, as JSON.parse would make it. */
function withKey(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return target;
}

/** JSON values that are nowhere the right one: wrong types, nesting, tricky keys. */
export const junkValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    junkString,
    fc.constantFrom(0, -0, 1, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, true, false, null),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(junkString, { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string()), tie('value')), {
        maxLength: 4,
      })
      .map((entries) => entries.reduce((o, [k, v]) => withKey(o, k, v), {})),
    // Deeply nested, far past any depth a real body has.
    fc.tuple(fc.integer({ min: 20, max: 1_000 }), fc.boolean()).map(([depth, asArray]) => {
      let node: unknown = 'x';
      for (let i = 0; i < depth; i++) node = asArray ? [node] : { a: node };
      return node;
    }),
  ),
})).value;

/** One change that makes a valid body a wrong one. */
export type BodyMutation =
  | { kind: 'set'; field: string; value: unknown }
  | { kind: 'drop'; field: string }
  | { kind: 'add'; key: string; value: unknown }
  | { kind: 'wrap'; field: string }
  | { kind: 'stringify'; field: string }
  | { kind: 'whole'; value: unknown };

/** Mutations of a body whose schema has these `fields`. */
export function bodyMutations(fields: string[]): fc.Arbitrary<BodyMutation> {
  const field = fields.length > 0 ? fc.constantFrom(...fields) : fc.constant('body');
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('set'), field, value: junkValue }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop'), field }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('add'),
        key: fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string({ unit: 'grapheme' })),
        value: junkValue,
      }),
    },
    // An array where one value goes, a number or a boolean sent as a string.
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap'), field }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('stringify'), field }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('whole'),
        value: fc.oneof(junkValue, fc.constantFrom(null, [], 0, '', 'x', true)),
      }),
    },
  ) as fc.Arbitrary<BodyMutation>;
}

/** `body` with `mutations` applied in order; `body` itself is left as it was. */
export function applyMutations(body: unknown, mutations: BodyMutation[]): unknown {
  let out: unknown = body;
  for (const mutation of mutations) {
    if (mutation.kind === 'whole') {
      out = mutation.value;
      continue;
    }
    const copy: Record<string, unknown> =
      out && typeof out === 'object' && !Array.isArray(out) ? { ...out } : {};
    switch (mutation.kind) {
      case 'set':
        withKey(copy, mutation.field, mutation.value);
        break;
      case 'drop':
        delete copy[mutation.field];
        break;
      case 'add':
        withKey(copy, mutation.key, mutation.value);
        break;
      case 'wrap':
        copy[mutation.field] = [copy[mutation.field] ?? 'x'];
        break;
      case 'stringify':
        copy[mutation.field] = String(JSON.stringify(copy[mutation.field] ?? 1));
        break;
    }
    out = copy;
  }
  return out;
}

/** JSON text that is not JSON, or is JSON no parser should be made to struggle with. */
export function malformedJson(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string | Buffer> {
  const text = valid.map((value) => JSON.stringify(value) ?? 'null');
  return fc.oneof(
    fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % Math.max(t.length, 1))),
    fc
      .tuple(text, fc.nat(), fc.constantFrom(',', '"', '{', ']', '\\', "'", '\u0000', ' '))
      .map(([t, n, c]) => t.slice(0, n % (t.length + 1)) + c + t.slice(n % (t.length + 1))),
    text.map((t) => t.replace(/}$/, ',}')),
    text.map((t) => t.replaceAll('"', "'")),
    text.map((t) => `\ufeff${t}`),
    text.map((t) => `${t}${t}`),
    text.map((t) => `/* note */${t}`),
    fc.constantFrom(
      '',
      ' ',
      '\n\t',
      '{',
      '}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":undefined}',
      '{a:1}',
      '{"from":"+14155550100","from":1}',
      '{"__proto__":{"isAdmin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"to":"\\ud800"}',
      '{"body":"\\u0000"}',
      '{"a":1e99999}',
      '{"a":-}',
      'null',
      '[]',
      '"text"',
      '123',
      'true',
    ),
    fc
      .tuple(fc.integer({ min: 1_000, max: 120_000 }), fc.constantFrom('[', '{"a":'))
      .map(([depth, open]) => open.repeat(depth) + (open === '[' ? ']' : '1}').repeat(depth)),
    fc
      .uint8Array({ minLength: 1, maxLength: 64 })
      .map((bytes) => Buffer.concat([Buffer.from('{"body":"'), bytes, Buffer.from('"}')])),
  );
}
