// Optional parameters (TLVs, SMPP 3.4 section 5.3). The ones this ESME acts on are typed
// and checked; every other tag, known to the specification or not, is kept as raw octets
// so nothing the SMSC sends is lost.
import { PduDecodeError, PduEncodeError } from './errors.ts';
import { PduReader, type PduWriter } from './pdu-buffer.ts';

type Kind = 'u8' | 'u16' | 'u32' | 'cstring' | 'octets' | 'network_error';

interface Spec {
  tag: number;
  kind: Kind;
  /** Octets at most, for C-Octet Strings (NUL included) and Octet Strings. */
  max?: number;
}

/** The typed TLVs, by their name in the specification (camelCase). */
const SPECS = {
  receiptedMessageId: { tag: 0x001e, kind: 'cstring', max: 65 },
  messageState: { tag: 0x0427, kind: 'u8' },
  networkErrorCode: { tag: 0x0423, kind: 'network_error' },
  messagePayload: { tag: 0x0424, kind: 'octets', max: 0xffff },
  sarMsgRefNum: { tag: 0x020c, kind: 'u16' },
  sarTotalSegments: { tag: 0x020e, kind: 'u8' },
  sarSegmentSeqnum: { tag: 0x020f, kind: 'u8' },
  userMessageReference: { tag: 0x0204, kind: 'u16' },
  sourcePort: { tag: 0x020a, kind: 'u16' },
  destinationPort: { tag: 0x020b, kind: 'u16' },
  scInterfaceVersion: { tag: 0x0210, kind: 'u8' },
  payloadType: { tag: 0x0019, kind: 'u8' },
  moreMessagesToSend: { tag: 0x0426, kind: 'u8' },
  deliveryFailureReason: { tag: 0x0425, kind: 'u8' },
  additionalStatusInfoText: { tag: 0x001d, kind: 'cstring', max: 256 },
  dpfResult: { tag: 0x0420, kind: 'u8' },
  msAvailabilityStatus: { tag: 0x0422, kind: 'u8' },
  qosTimeToLive: { tag: 0x0017, kind: 'u32' },
} as const satisfies Record<string, Spec>;

type Specs = typeof SPECS;
export type TlvName = keyof Specs;

/** network_error_code: the network type (1 ANSI-136, 2 IS-95, 3 GSM…) and its error code. */
export interface NetworkErrorCode {
  networkType: number;
  errorCode: number;
}

interface KindValue {
  u8: number;
  u16: number;
  u32: number;
  cstring: string;
  octets: Buffer;
  network_error: NetworkErrorCode;
}

/** A TLV kept as it came: any tag this module does not type. */
export interface RawTlv {
  tag: number;
  value: Buffer;
}

/** A PDU's optional parameters: the typed ones by name, the rest in `other`, in order. */
export type Tlvs = { [N in TlvName]?: KindValue[Specs[N]['kind']] } & { other?: RawTlv[] };

/** The tag of a typed TLV, for callers that compare raw tags. */
export const TlvTag: { readonly [N in TlvName]: number } = Object.fromEntries(
  Object.entries(SPECS).map(([name, spec]) => [name, spec.tag]),
) as { [N in TlvName]: number };

const BY_TAG = new Map<number, [TlvName, Spec]>(
  Object.entries(SPECS).map(([name, spec]) => [spec.tag, [name as TlvName, spec]]),
);

const FIXED: Partial<Record<Kind, number>> = { u8: 1, u16: 2, u32: 4, network_error: 3 };

function decodeValue(name: string, spec: Spec, value: Buffer): unknown {
  const fixed = FIXED[spec.kind];
  if (fixed !== undefined && value.length !== fixed) {
    throw new PduDecodeError(
      'bad_tlv_length',
      `TLV ${name}: length ${value.length}, expected ${fixed}`,
    );
  }
  if (spec.max !== undefined && value.length > spec.max) {
    throw new PduDecodeError(
      'bad_tlv_length',
      `TLV ${name}: length ${value.length}, at most ${spec.max}`,
    );
  }
  switch (spec.kind) {
    case 'u8':
      return value.readUInt8(0);
    case 'u16':
      return value.readUInt16BE(0);
    case 'u32':
      return value.readUInt32BE(0);
    case 'network_error':
      return { networkType: value.readUInt8(0), errorCode: value.readUInt16BE(1) };
    case 'cstring': {
      // The terminating NUL is required by the specification and often missing in
      // practice; either way the text is what precedes the first NUL.
      const nul = value.indexOf(0);
      return value.toString('latin1', 0, nul === -1 ? value.length : nul);
    }
    case 'octets':
      return Buffer.from(value);
  }
}

/** Reads TLVs until the end of `reader`; a TLV whose length runs past the PDU is an error. */
export function readTlvs(reader: PduReader): Tlvs {
  const tlvs: Record<string, unknown> & { other?: RawTlv[] } = {};
  while (reader.remaining > 0) {
    if (reader.remaining < 4) {
      throw new PduDecodeError(
        'tlv_overrun',
        `${reader.remaining} octets after the mandatory fields, too few for a TLV header`,
      );
    }
    const tag = reader.u16('TLV tag');
    const length = reader.u16('TLV length');
    if (length > reader.remaining) {
      throw new PduDecodeError(
        'tlv_overrun',
        `TLV 0x${tag.toString(16).padStart(4, '0')}: length ${length} runs past the PDU (${reader.remaining} left)`,
      );
    }
    const value = reader.octets('TLV value', length);
    const known = BY_TAG.get(tag);
    if (known) tlvs[known[0]] = decodeValue(known[0], known[1], value);
    else (tlvs.other ??= []).push({ tag, value });
  }
  return tlvs as Tlvs;
}

/** Decodes a TLV stream on its own (tests, and TLVs carried elsewhere). */
export function decodeTlvs(bytes: Buffer): Tlvs {
  return readTlvs(new PduReader(bytes));
}

function encodeValue(name: string, spec: Spec, value: unknown): Buffer {
  switch (spec.kind) {
    case 'u8':
      return Buffer.from([Number(value) & 0xff]);
    case 'u16': {
      const bytes = Buffer.alloc(2);
      bytes.writeUInt16BE(Number(value) & 0xffff);
      return bytes;
    }
    case 'u32': {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(Number(value) >>> 0);
      return bytes;
    }
    case 'network_error': {
      const { networkType, errorCode } = value as NetworkErrorCode;
      const bytes = Buffer.alloc(3);
      bytes.writeUInt8(networkType & 0xff);
      bytes.writeUInt16BE(errorCode & 0xffff, 1);
      return bytes;
    }
    case 'cstring': {
      const bytes = Buffer.concat([Buffer.from(String(value), 'latin1'), Buffer.from([0])]);
      if (spec.max !== undefined && bytes.length > spec.max) {
        throw new PduEncodeError(`TLV ${name}: ${bytes.length} octets, at most ${spec.max}`);
      }
      return bytes;
    }
    case 'octets': {
      const bytes = value as Buffer;
      if (spec.max !== undefined && bytes.length > spec.max) {
        throw new PduEncodeError(`TLV ${name}: ${bytes.length} octets, at most ${spec.max}`);
      }
      return bytes;
    }
  }
}

function writeOne(writer: PduWriter, tag: number, value: Buffer): void {
  if (value.length > 0xffff) {
    throw new PduEncodeError(`TLV 0x${tag.toString(16)}: ${value.length} octets is too long`);
  }
  writer.u16(tag).u16(value.length).octets(value);
}

/** Writes the typed TLVs in the specification's table order, then the raw ones as given. */
export function writeTlvs(writer: PduWriter, tlvs: Tlvs): void {
  for (const [name, spec] of Object.entries(SPECS) as [TlvName, Spec][]) {
    const value = tlvs[name];
    if (value === undefined) continue;
    writeOne(writer, spec.tag, encodeValue(name, spec, value));
  }
  for (const raw of tlvs.other ?? []) writeOne(writer, raw.tag, raw.value);
}
