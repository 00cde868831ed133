// GSM 03.38 (3GPP TS 23.038) default alphabet and its extension table, as SMPP carries
// them with data_coding 0: one septet per octet, unpacked; the SMSC packs them for the air.
// UCS-2 (data_coding 8) is UTF-16 big-endian, surrogate pairs included. `encodeText` picks
// between them as `countSegments` does and cuts the text into the parts it counts.
import { SEGMENT_LIMITS, type SmsEncoding } from '@switchboard/sdk/segments';
import { DataCoding } from './pdu.ts';

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

/** A text encoded and cut into the parts a carrier bills. */
export interface EncodedText {
  encoding: SmsEncoding;
  dataCoding: number;
  /** Length in the encoding's units: septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  /** The whole text's octets: unpacked septets, or UTF-16BE. */
  bytes: Buffer;
  /** Each part's octets, without a header; empty for an empty text. */
  parts: Buffer[];
}

/** Octets per unit: a septet is sent as one octet, a UTF-16 code unit as two. */
const OCTETS_PER_UNIT: Record<SmsEncoding, number> = { 'GSM-7': 1, 'UCS-2': 2 };

/** Each character's octets, in order; GSM-7 when all have a code, else UCS-2. */
function characters(text: string): { encoding: SmsEncoding; chars: Buffer[] } {
  const chars = Array.from(text);
  const gsm: Buffer[] = [];
  for (const char of chars) {
    const septets = gsmSeptets(char);
    if (septets === null) return { encoding: 'UCS-2', chars: chars.map(encodeUcs2) };
    gsm.push(Buffer.from(septets));
  }
  return { encoding: 'GSM-7', chars: gsm };
}

/**
 * Encodes `text` and cuts it into parts by the rule `countSegments` counts with: one part
 * up to 160 septets / 70 code units, else parts of at most 153 / 67, a character that does
 * not fit whole opening the next part.
 */
export function encodeText(text: string): EncodedText {
  const { encoding, chars } = characters(text);
  const unit = OCTETS_PER_UNIT[encoding];
  const bytes = Buffer.concat(chars);
  const units = bytes.length / unit;
  const limits = SEGMENT_LIMITS[encoding];
  const dataCoding = encoding === 'GSM-7' ? DataCoding.DEFAULT : DataCoding.UCS2;
  if (units === 0) return { encoding, dataCoding, units, bytes, parts: [] };
  if (units <= limits.single) return { encoding, dataCoding, units, bytes, parts: [bytes] };
  const parts: Buffer[] = [];
  let current: Buffer[] = [];
  let used = 0;
  for (const char of chars) {
    const cost = char.length / unit;
    if (used + cost > limits.multipart) {
      parts.push(Buffer.concat(current));
      current = [];
      used = 0;
    }
    current.push(char);
    used += cost;
  }
  parts.push(Buffer.concat(current));
  return { encoding, dataCoding, units, bytes, parts };
}
