import { isPossiblePhoneNumber } from 'libphonenumber-js';

const E164_SHAPE = /^\+[1-9]\d{6,14}$/;

/**
 * True when `value` is an E.164 number: `+`, country code and subscriber number,
 * no spaces or punctuation, and a length that numbering plan allows.
 */
export function isE164(value: string): boolean {
  return E164_SHAPE.test(value) && isPossiblePhoneNumber(value);
}
