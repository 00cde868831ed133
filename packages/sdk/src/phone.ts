/**
 * The shape of an E.164 number: `+`, a country code that never starts with 0, 7 to 15 digits in
 * all. Shape only: whether the numbering plan allows the number is the server's call.
 */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/** True when `value` has the E.164 shape the API and deep links accept (`+14155550123`). */
export function isE164(value: string): boolean {
  return E164_PATTERN.test(value);
}
