// GSM 03.38 (3GPP TS 23.038) default alphabet and its extension table, as SMPP carries
// them with data_coding 0: one septet per octet, unpacked; the SMSC packs them for the air.
// UCS-2 (data_coding 8) is UTF-16 big-endian, surrogate pairs included.

/** The escape septet that makes the next one a code of the extension table. */
export const ESCAPE = 0x1b;

// The default alphabet by septet value; 0x1B is the escape, never a character of its own.
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** The extension table: the septet that follows the escape, by character. */
const EXTENSION: ReadonlyMap<string, number> = new Map([
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
]);

const BASIC_SEPTET: ReadonlyMap<string, number> = new Map(
  Array.from(BASIC, (char, septet) => [char, septet] as const).filter(
    ([, septet]) => septet !== ESCAPE,
  ),
);
const EXTENSION_CHAR: ReadonlyMap<number, string> = new Map(
  Array.from(EXTENSION, ([char, septet]) => [septet, char] as const),
);

if (BASIC.length !== 128) throw new Error('the GSM 03.38 table must have 128 entries');

/** The septets of one character: one from the default alphabet, two via the escape, or none. */
export function gsmSeptets(char: string): number[] | null {
  const basic = BASIC_SEPTET.get(char);
  if (basic !== undefined) return [basic];
  const extended = EXTENSION.get(char);
  if (extended !== undefined) return [ESCAPE, extended];
  return null;
}

/** True when every character of `text` is in the default alphabet or the extension table. */
export function isGsmEncodable(text: string): boolean {
  for (const char of text) if (gsmSeptets(char) === null) return false;
  return true;
}

/** Encodes `text` as unpacked septets; null when a character has no GSM 03.38 code. */
export function encodeGsm7(text: string): Buffer | null {
  const septets: number[] = [];
  for (const char of text) {
    const codes = gsmSeptets(char);
    if (codes === null) return null;
    septets.push(...codes);
  }
  return Buffer.from(septets);
}

/**
 * Decodes unpacked septets. An escape followed by a code the extension table lacks shows
 * the default alphabet's character for that code (23.038's rule for receivers); a lone
 * escape at the end is dropped. The top bit of each octet is ignored.
 */
export function decodeGsm7(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const septet = bytes[i]! & 0x7f;
    if (septet !== ESCAPE) {
      text += BASIC[septet];
      continue;
    }
    if (i + 1 >= bytes.length) break;
    const next = bytes[++i]! & 0x7f;
    text += EXTENSION_CHAR.get(next) ?? (next === ESCAPE ? ' ' : BASIC[next]);
  }
  return text;
}

/** UTF-16 big-endian: every code unit in two octets, a surrogate pair as its two units. */
export function encodeUcs2(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/** Decodes UTF-16 big-endian; an odd last octet cannot be a character and is dropped. */
export function decodeUcs2(bytes: Uint8Array): string {
  const even = bytes.length - (bytes.length % 2);
  return Buffer.from(bytes.subarray(0, even)).swap16().toString('utf16le');
}
