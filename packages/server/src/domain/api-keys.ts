import type { Mode } from './modes.ts';

/** `sk_test_` or `sk_live_`, then 32 or more base62 characters. */
const KEY_FORMAT = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;

/** Length of the random part of keys this service issues. */
export const KEY_RANDOM_LENGTH = 40;

/** The mode a well-formed key acts in, or null for anything malformed. */
export function parseKeyMode(secret: string): Mode | null {
  const match = KEY_FORMAT.exec(secret);
  return match ? (match[1] as Mode) : null;
}

/** The secret's visible prefix for its mode. */
export function keyPrefix(mode: Mode): string {
  return `sk_${mode}_`;
}
