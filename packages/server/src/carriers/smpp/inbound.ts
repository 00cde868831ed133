// What a deliver_sm or data_sm from the SMSC is: a delivery receipt or a text from a
// handset (or one part of one). Its payload is short_message or message_payload, with a
// UDH or SAR TLVs when it is a part, in the alphabet its data_coding names.
import { fromSmppAddress } from './address.ts';
import { DataCoding, EsmClass, type DataSmPdu, type ShortMessagePdu } from './pdu.ts';
import { decodeGsm7, decodeUcs2 } from './gsm7.ts';
import { splitUdh, type Concatenation } from './message-text.ts';
import { parseReceipt, type IdFormats, type Receipt } from './receipt.ts';

/** What data_coding 0 (the "SMSC default alphabet") means on this connection. */
export type DefaultAlphabet = 'gsm7' | 'latin1';

export type Alphabet = 'gsm7' | 'ascii' | 'latin1' | 'ucs2' | 'binary';

/**
 * The alphabet of a data_coding: SMPP's own values for 0x00..0x0F (0 default, 1 IA5,
 * 3 Latin-1, 8 UCS-2, 2 and 4 octets), and GSM 03.38's coding groups above them.
 */
export function alphabetOf(dataCoding: number, defaultAlphabet: DefaultAlphabet): Alphabet {
  switch (dataCoding) {
    case DataCoding.DEFAULT:
      return defaultAlphabet;
    case DataCoding.IA5:
      return 'ascii';
    case DataCoding.LATIN1:
      return 'latin1';
    case DataCoding.UCS2:
      return 'ucs2';
  }
  if (dataCoding <= 0x0f) return 'binary';
  // 23.038 general data coding (00xx xxxx) and message class (1111 xxxx) groups.
  if ((dataCoding & 0xc0) === 0x00) {
    const bits = dataCoding & 0x0c;
    if (dataCoding & 0x20) return 'binary'; // compressed: not supported
    return bits === 0x00 ? 'gsm7' : bits === 0x08 ? 'ucs2' : 'binary';
  }
  if ((dataCoding & 0xf0) === 0xf0) return dataCoding & 0x04 ? 'binary' : 'gsm7';
  return 'binary';
}

/** Decodes octets in an alphabet; binary has no text. */
export function decodeText(bytes: Buffer, alphabet: Alphabet): string {
  switch (alphabet) {
    case 'gsm7':
      return decodeGsm7(bytes);
    case 'ucs2':
      return decodeUcs2(bytes);
    case 'ascii':
      return Buffer.from(bytes.map((b) => b & 0x7f)).toString('latin1');
    case 'latin1':
      return bytes.toString('latin1');
    case 'binary':
      return '';
  }
}

/** One text, or one part of a concatenated text, from a handset. */
export interface InboundPart {
  /** E.164 (`+…`) when the SMSC marks the number international (TON 1), else as written. */
  source: string;
  destination: string;
  alphabet: Alphabet;
  /** The payload's octets, header removed; joined across parts before decoding. */
  payload: Buffer;
  text: string;
  /** Set when this is one part of several (UDH concatenation IE, or SAR TLVs). */
  concat: Concatenation | null;
}

export type Inbound =
  | { kind: 'receipt'; receipt: Receipt }
  | { kind: 'message'; part: InboundPart }
  | { kind: 'invalid'; error: string };

export interface InboundOptions {
  ids: IdFormats;
  defaultAlphabet: DefaultAlphabet;
}

/** A PDU that carries something to the ESME. */
export type Delivery = ShortMessagePdu | DataSmPdu;

function payloadOf(pdu: Delivery): Buffer {
  const short = 'shortMessage' in pdu ? pdu.shortMessage : Buffer.alloc(0);
  return short.length > 0 ? short : (pdu.tlvs.messagePayload ?? Buffer.alloc(0));
}

/** True when esm_class says receipt or intermediate notification, or the receipt TLVs are there. */
function isReceipt(pdu: Delivery): boolean {
  const type = pdu.esmClass & EsmClass.TYPE_MASK;
  if (type === EsmClass.DELIVERY_RECEIPT || type === EsmClass.INTERMEDIATE_NOTIFICATION) {
    return true;
  }
  return pdu.tlvs.receiptedMessageId !== undefined && pdu.tlvs.messageState !== undefined;
}

/** Tells a receipt from a text and reads either; a malformed one is `invalid`, with why. */
export function classifyDelivery(pdu: Delivery, options: InboundOptions): Inbound {
  let payload = payloadOf(pdu);
  let concat: Concatenation | null = null;
  if (pdu.esmClass & EsmClass.UDHI) {
    const split = splitUdh(payload);
    if (!split.ok) return { kind: 'invalid', error: split.error };
    payload = split.payload;
    concat = split.concat;
  } else {
    const { sarMsgRefNum, sarTotalSegments, sarSegmentSeqnum } = pdu.tlvs;
    if (
      sarMsgRefNum !== undefined &&
      sarTotalSegments !== undefined &&
      sarSegmentSeqnum !== undefined
    ) {
      if (sarTotalSegments === 0 || sarSegmentSeqnum === 0 || sarSegmentSeqnum > sarTotalSegments) {
        return {
          kind: 'invalid',
          error: `SAR part ${sarSegmentSeqnum} of ${sarTotalSegments}`,
        };
      }
      concat = { reference: sarMsgRefNum, total: sarTotalSegments, seq: sarSegmentSeqnum };
    }
  }
  const alphabet = alphabetOf(pdu.dataCoding, options.defaultAlphabet);
  const text = decodeText(payload, alphabet);
  if (isReceipt(pdu)) {
    // A receipt's text is ASCII by the specification, whatever data_coding claims.
    const receiptText = alphabet === 'ucs2' ? text : payload.toString('latin1');
    const parsed = parseReceipt({ tlvs: pdu.tlvs, text: receiptText }, options.ids);
    return parsed.ok
      ? { kind: 'receipt', receipt: parsed.receipt }
      : { kind: 'invalid', error: `receipt: ${parsed.error}` };
  }
  return {
    kind: 'message',
    part: {
      source: fromSmppAddress(pdu.sourceAddr, pdu.sourceAddrTon),
      destination: fromSmppAddress(pdu.destinationAddr, pdu.destAddrTon),
      alphabet,
      payload,
      text,
      concat,
    },
  };
}
