import { isPossiblePhoneNumber } from 'libphonenumber-js';

const E164_SHAPE = /^\+[1-9]\d{6,14}$/;

/**
 * Numbers already found possible. libphonenumber's check costs about 20 µs and
 * ran twice per send (from and to), a tenth of the CPU of `POST /v1/messages`;
 * the answer for a number never changes, and traffic repeats the same numbers.
 * Bounded: when full it is cleared, which costs one re-check per number.
 */
const possible = new Set<string>();
const MEMO_LIMIT = 50_000;

/**
 * True when `value` is an E.164 number: `+`, country code and subscriber number,
 * no spaces or punctuation, and a length that numbering plan allows.
 */
export function isE164(value: string): boolean {
  if (possible.has(value)) return true;
  if (!E164_SHAPE.test(value) || !isPossiblePhoneNumber(value)) return false;
  if (possible.size >= MEMO_LIMIT) possible.clear();
  possible.add(value);
  return true;
}
