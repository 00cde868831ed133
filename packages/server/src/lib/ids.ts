import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn 4 KiB at a time: one CSPRNG call per ~250 ids instead of one
// per id (a send makes several ids; the per-call cost showed in profiles).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Random base62 text of the given length, from the operating system's CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  // Rejection sampling keeps every character uniform: 62 * 4 = 248 < 256.
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
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

// The last id's time and random parts: ids made within one millisecond count up from it.
let lastMs = -1;
let lastTime = '';
let lastRandom = '';

/** `text` + 1 in base62, or null when it is all `z` and would overflow. */
function incrementBase62(text: string): string | null {
  // Only the last digit changes but once in 62 times: no array of digits per id.
  for (let i = text.length - 1; i >= 0; i--) {
    const digit = BASE62.indexOf(text[i]!);
    if (digit < 61) {
      return text.slice(0, i) + BASE62[digit + 1] + '0'.repeat(text.length - 1 - i);
    }
  }
  return null;
}

/**
 * A new id: prefix, then the creation time, then randomness (`msg_0Ab3…`).
 * Time-ordered ids keep B-tree inserts at the right edge of the index, which
 * measured about twice the batched insert rate of random keys. Within one
 * millisecond the random part counts up from the previous id (as monotonic
 * ULIDs do), so ids made one after another sort in that order: "newest" and
 * conversation order stay right for records made in the same millisecond.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  const time = now === lastMs ? lastTime : encodeTime(now);
  const random = (time === lastTime && incrementBase62(lastRandom)) || randomBase62(14);
  lastMs = now;
  lastTime = time;
  lastRandom = random;
  return `${prefix}_${time}${random}`;
}

/**
 * The lowest id `newId(prefix, ms)` can make: every id made before `ms` sorts
 * below it, so a range of ids is a range of creation times (an index on ids
 * serves both).
 */
export function lowestIdAt(prefix: string, ms: number): string {
  return `${prefix}_${encodeTime(ms)}`;
}
