// A text as SMPP carries it: the encoding `countSegments` picks (GSM-7 when every
// character is in GSM 03.38, else UCS-2), cut into the same number of parts it counts,
// each part a whole number of characters so no escape pair or surrogate pair is split.
// Long texts travel as concatenated parts with a UDH, or whole in message_payload.
import { SEGMENT_LIMITS, type SmsEncoding } from '@switchboard/sdk/segments';
import { DataCoding, EsmClass } from './pdu.ts';
import { encodeUcs2, gsmSeptets } from './gsm7.ts';
import type { Tlvs } from './tlv.ts';

/** How a text longer than one SMS is submitted; set per connection. */
export type LongMessageMode = 'udh' | 'payload';

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

/** The fields of one submit_sm that carry a part of a text. */
export interface TextPart {
  esmClass: number;
  dataCoding: number;
  shortMessage: Buffer;
  tlvs: Tlvs;
}

/** IE 0x00: concatenated short messages with an 8-bit reference (3GPP TS 23.040 9.2.3.24.1). */
const IEI_CONCAT_8 = 0x00;
/** IE 0x08: the same with a 16-bit reference. */
const IEI_CONCAT_16 = 0x08;

/** The six-octet UDH of part `seq` (from 1) of `total` with reference `reference`. */
export function concatHeader(reference: number, total: number, seq: number): Buffer {
  return Buffer.from([0x05, IEI_CONCAT_8, 0x03, reference & 0xff, total, seq]);
}

/**
 * The submit_sm payloads of a text: one short_message when it fits one SMS; else, by
 * `mode`, one part per segment behind a concatenation UDH (esm_class UDHI, the same
 * 8-bit `reference` on every part), or the whole text in one message_payload TLV.
 */
export function textParts(text: string, mode: LongMessageMode, reference: number): TextPart[] {
  const encoded = encodeText(text);
  const { dataCoding, parts } = encoded;
  if (parts.length <= 1) {
    return parts.map((shortMessage) => ({ esmClass: 0, dataCoding, shortMessage, tlvs: {} }));
  }
  if (mode === 'payload') {
    return [
      {
        esmClass: 0,
        dataCoding,
        shortMessage: Buffer.alloc(0),
        tlvs: { messagePayload: encoded.bytes },
      },
    ];
  }
  if (parts.length > 255) throw new RangeError(`${parts.length} parts: at most 255 can be joined`);
  return parts.map((part, index) => ({
    esmClass: EsmClass.UDHI,
    dataCoding,
    shortMessage: Buffer.concat([concatHeader(reference, parts.length, index + 1), part]),
    tlvs: {},
  }));
}

/** Where a part belongs in a concatenated message. */
export interface Concatenation {
  reference: number;
  total: number;
  /** 1-based. */
  seq: number;
}

export type UdhResult =
  { ok: true; payload: Buffer; concat: Concatenation | null } | { ok: false; error: string };

/**
 * Splits a short message that begins with a UDH into its payload and its concatenation
 * IE (8- or 16-bit reference), if any. A header longer than the message, or an IE
 * longer than the header, is an error.
 */
export function splitUdh(message: Buffer): UdhResult {
  if (message.length === 0) return { ok: false, error: 'UDHI set on an empty message' };
  const udhLength = message[0]!;
  if (1 + udhLength > message.length) {
    return {
      ok: false,
      error: `UDH length ${udhLength} runs past the ${message.length}-octet message`,
    };
  }
  let concat: Concatenation | null = null;
  let offset = 1;
  const end = 1 + udhLength;
  while (offset < end) {
    if (offset + 2 > end) return { ok: false, error: 'UDH ends inside an IE header' };
    const iei = message[offset]!;
    const length = message[offset + 1]!;
    const data = offset + 2;
    if (data + length > end)
      return { ok: false, error: `UDH IE 0x${iei.toString(16)} runs past the UDH` };
    if (iei === IEI_CONCAT_8 && length === 3) {
      concat = { reference: message[data]!, total: message[data + 1]!, seq: message[data + 2]! };
    } else if (iei === IEI_CONCAT_16 && length === 4) {
      concat = {
        reference: message.readUInt16BE(data),
        total: message[data + 2]!,
        seq: message[data + 3]!,
      };
    }
    offset = data + length;
  }
  if (concat && (concat.total === 0 || concat.seq === 0 || concat.seq > concat.total)) {
    return { ok: false, error: `concatenation part ${concat.seq} of ${concat.total}` };
  }
  return { ok: true, payload: message.subarray(end), concat };
}
