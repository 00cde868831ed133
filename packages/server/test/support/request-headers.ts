import fc from 'fast-check';
import type { AuthChoice, Owner } from './request-cases.ts';

/** Content-Encoding `gzip`, and a body that really is gzipped. */
export const GZIPPED = 'gzip (compressed)';

/** Ways to spoil a real key: each is no key at all. */
export const GARBLINGS = [
  'truncated',
  'one character changed',
  "other mode's prefix",
  'without scheme',
  'basic scheme',
  'twice',
  'trailing junk',
] as const;

/** The actor's test key, as nearly every request carries it. */
export const TEST_KEY: AuthChoice = { kind: 'key', owner: 'test', scheme: 'Bearer' };

/** Authorization of every kind: real keys of each owner (scheme in any case), spoilt keys, junk, none. */
export const someAuth: fc.Arbitrary<AuthChoice> = fc.oneof(
  fc.record({
    kind: fc.constant('key' as const),
    owner: fc.constantFrom<Owner>('test', 'live', 'other'),
    scheme: fc.constantFrom('Bearer', 'bearer', 'BEARER'),
  }),
  fc.record({
    kind: fc.constant('garbled' as const),
    owner: fc.constantFrom<Owner>('test', 'live', 'other'),
    how: fc.constantFrom(...GARBLINGS),
  }),
  fc.constant({ kind: 'none' as const }),
  fc
    .oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
      fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer sk_test_', 'Bearer sk_live_x', 'Token abc'),
      fc.integer({ min: 17_000, max: 20_000 }).map((n) => `Bearer sk_test_${'A'.repeat(n)}`),
    )
    .map((value) => ({ kind: 'raw' as const, value })),
);

/** Content-Type as clients send it, right and wrong. */
export const someContentType: fc.Arbitrary<string | null> = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON;CHARSET=UTF-8',
  'application/json;charset=utf-16',
  'application/json; charset=latin1',
  'application/json ; foo=bar',
  'application/json-patch+json',
  'application/jsonx',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  '',
  null,
);

/** Idempotency-Key values: a few reused (replays, conflicts), and odd lengths and characters. */
export const someIdempotencyKey: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.constantFrom('key-1', 'key-2', 'key-3') },
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 255 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 256, maxLength: 400 }),
  fc
    .string({ unit: 'binary-ascii', minLength: 1, maxLength: 20 })
    .filter((s) => /^[\t\x20-\x7e\x80-\xff]+$/.test(s)),
  fc.constantFrom('', ' ', 'a b', 'clé', '\t'),
);

/** Content-Encoding: none mostly, and codings the service may or may not decode. */
export const someContentEncoding: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  fc.constantFrom('gzip', GZIPPED, 'identity', 'br', 'deflate, gzip', 'x-junk'),
);

/** The Authorization header an auth choice sends, or null for none. */
export function authorization(keys: Record<Owner, string>, auth: AuthChoice): string | null {
  if (auth.kind === 'none') return null;
  if (auth.kind === 'raw') return auth.value;
  const key = keys[auth.owner];
  if (auth.kind === 'key') return `${auth.scheme} ${key}`;
  switch (auth.how as (typeof GARBLINGS)[number]) {
    case 'truncated':
      return `Bearer ${key.slice(0, -1)}`;
    case 'one character changed':
      return `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    case "other mode's prefix":
      return `Bearer ${key.startsWith('sk_test_') ? key.replace('sk_test_', 'sk_live_') : key.replace('sk_live_', 'sk_test_')}`;
    case 'without scheme':
      return key;
    case 'basic scheme':
      return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    case 'twice':
      return `Bearer ${key} ${key}`;
    case 'trailing junk':
      return `Bearer ${key}x!`;
  }
}
