// A text as submit_sm carries it: one short_message, or several parts behind a
// concatenation UDH, or one message_payload; and the UDH of a part that comes back.
import { EsmClass } from './pdu.ts';
import { encodeText } from './gsm7.ts';
import type { Tlvs } from './tlv.ts';

/** How a text longer than one SMS is submitted; set per connection. */
export type LongMessageMode = 'udh' | 'payload';

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
