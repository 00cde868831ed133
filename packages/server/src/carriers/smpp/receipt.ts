// Delivery receipts: the TLVs receipted_message_id and message_state when the SMSC sends
// them, else the text of SMPP 3.4 Appendix B (`id:… sub:… dlvrd:… submit date:… done
// date:… stat:… err:… text:…`), read loosely since SMSCs vary its case and spelling.
import type { FailureReason } from '../../domain/message-status.ts';
import type { NetworkErrorCode, Tlvs } from './tlv.ts';

/**
 * How an SMSC writes message ids: decimal digits, hexadecimal digits, or opaque text.
 * Some SMSCs answer submit_sm in one base and write the receipt text in the other.
 */
export type IdFormat = 'dec' | 'hex' | 'text';

/**
 * Where each id format applies. `submit` is the format of submit_sm_resp's message_id
 * and of the receipted_message_id TLV (SMPP 3.4 defines it as that same id); `receipt`
 * is the format of the id in the receipt text.
 */
export interface IdFormats {
  submit: IdFormat;
  receipt: IdFormat;
}

export const AS_GIVEN: IdFormats = { submit: 'text', receipt: 'text' };

/**
 * The canonical form of a message id, so the id of a submit_sm_resp and the id in its
 * receipt compare equal. A numeric id (`dec` or `hex`) becomes its value in decimal
 * without leading zeros (`00FF` as hex and `255` as dec both give `255`); `text`, and an
 * id that is not a number in its declared base, is kept as given, trimmed.
 */
export function normaliseMessageId(id: string, format: IdFormat): string {
  const trimmed = id.trim();
  if (format === 'dec' && /^\d+$/.test(trimmed)) return BigInt(trimmed).toString();
  if (format === 'hex') {
    const digits = trimmed.replace(/^0x/i, '');
    if (/^[0-9a-f]+$/i.test(digits)) return BigInt(`0x${digits}`).toString();
  }
  return trimmed;
}

/** The final and interim states of SMPP 3.4 (5.2.28 and Appendix B), by their text name. */
export const RECEIPT_STATES = [
  'ENROUTE',
  'DELIVRD',
  'EXPIRED',
  'DELETED',
  'UNDELIV',
  'ACCEPTD',
  'UNKNOWN',
  'REJECTD',
] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];

/** message_state TLV values 1..8, in RECEIPT_STATES order. */
function stateOfTlv(value: number): ReceiptState | null {
  return value >= 1 && value <= RECEIPT_STATES.length ? RECEIPT_STATES[value - 1]! : null;
}

/** Spellings seen in the `stat:` field, besides the seven-letter forms. */
const STAT_ALIASES: Readonly<Record<string, ReceiptState>> = {
  DELIVERED: 'DELIVRD',
  UNDELIVERABLE: 'UNDELIV',
  UNDELIVERED: 'UNDELIV',
  FAILED: 'UNDELIV',
  REJECTED: 'REJECTD',
  ACCEPTED: 'ACCEPTD',
  ENROUTE: 'ENROUTE',
};

function stateOfText(stat: string): ReceiptState | null {
  const word = stat.toUpperCase().replace(/[^A-Z]/g, '');
  if ((RECEIPT_STATES as readonly string[]).includes(word)) return word as ReceiptState;
  return STAT_ALIASES[word] ?? null;
}

/** What a receipt means for the message: the Carrier port's status and reason. */
export interface ReceiptOutcome {
  status: 'sent' | 'delivered' | 'failed';
  failureReason: FailureReason | null;
  /** False for interim states: a later receipt for the same id is to be expected. */
  final: boolean;
}

/**
 * DELIVRD is delivered; UNDELIV and REJECTD failed with carrier_rejected; EXPIRED and
 * DELETED failed with unreachable (the network never reached the handset in time);
 * ACCEPTD, ENROUTE and UNKNOWN are not final: the message is sent and still on its way.
 */
export function receiptOutcome(state: ReceiptState): ReceiptOutcome {
  switch (state) {
    case 'DELIVRD':
      return { status: 'delivered', failureReason: null, final: true };
    case 'UNDELIV':
    case 'REJECTD':
      return { status: 'failed', failureReason: 'carrier_rejected', final: true };
    case 'EXPIRED':
    case 'DELETED':
      return { status: 'failed', failureReason: 'unreachable', final: true };
    case 'ACCEPTD':
    case 'ENROUTE':
    case 'UNKNOWN':
      return { status: 'sent', failureReason: null, final: false };
  }
}

/** The fields of an Appendix B receipt text, as written (none normalised). */
export interface ReceiptText {
  id: string | null;
  sub: string | null;
  dlvrd: string | null;
  submitDate: string | null;
  doneDate: string | null;
  stat: string | null;
  err: string | null;
  text: string | null;
}

const FIELD = /(?:^|[\s,;])(id|sub|dlvrd|submit[\s_-]*date|done[\s_-]*date|stat|err|text)\s*:/gi;

/**
 * Reads the fields of a receipt text in any order and case, with `submit date`,
 * `submit_date` or `submitdate`. `text:` runs to the end; every other value is its
 * first word. Null when there is neither an id nor a stat.
 */
export function parseReceiptText(body: string): ReceiptText | null {
  const found: ReceiptText = {
    id: null,
    sub: null,
    dlvrd: null,
    submitDate: null,
    doneDate: null,
    stat: null,
    err: null,
    text: null,
  };
  const matches = Array.from(body.matchAll(FIELD));
  for (let i = 0; i < matches.length; i++) {
    const match = matches[i]!;
    const key = match[1]!.toLowerCase().replace(/[\s_-]/g, '');
    const start = match.index + match[0].length;
    if (key === 'text') {
      found.text = body.slice(start);
      break;
    }
    const end = i + 1 < matches.length ? matches[i + 1]!.index : body.length;
    const value =
      body
        .slice(start, end)
        .trim()
        .split(/[\s,;]+/)[0] ?? '';
    const field =
      ({ submitdate: 'submitDate', donedate: 'doneDate' } as Record<string, keyof ReceiptText>)[
        key
      ] ?? (key as keyof ReceiptText);
    if (found[field] === null) found[field] = value;
  }
  return found.id === null && found.stat === null ? null : found;
}

/** A delivery receipt, its id normalised for matching against the submit_sm_resp's. */
export interface Receipt {
  messageId: string;
  /** The id as the SMSC wrote it. */
  rawMessageId: string;
  state: ReceiptState;
  outcome: ReceiptOutcome;
  /** Which part of the PDU the id and state came from. */
  source: 'tlv' | 'text' | 'tlv+text';
  networkErrorCode: NetworkErrorCode | null;
  /** The text's `err:` field, when there is one. */
  error: string | null;
  text: ReceiptText | null;
}

export type ReceiptResult = { ok: true; receipt: Receipt } | { ok: false; error: string };

/**
 * Reads a receipt from a deliver_sm or data_sm: its id from receipted_message_id (in the
 * `submit` format) or else the text (in the `receipt` format), its state from
 * message_state or else the text's stat.
 */
export function parseReceipt(input: { tlvs: Tlvs; text: string }, ids: IdFormats): ReceiptResult {
  const text = parseReceiptText(input.text);
  const tlvId = input.tlvs.receiptedMessageId;
  const tlvState =
    input.tlvs.messageState === undefined ? null : stateOfTlv(input.tlvs.messageState);
  const textState = text?.stat ? stateOfText(text.stat) : null;
  const rawId = tlvId ?? text?.id ?? null;
  const state = tlvState ?? textState;
  if (rawId === null || rawId.trim() === '') {
    return { ok: false, error: 'no receipted_message_id TLV and no id in the text' };
  }
  if (state === null) {
    const stat = text?.stat ?? null;
    const tlv = input.tlvs.messageState;
    return {
      ok: false,
      error: `no known state (message_state ${tlv ?? 'absent'}, stat ${stat ?? 'absent'})`,
    };
  }
  const idFromTlv = tlvId !== undefined;
  const stateFromTlv = tlvState !== null;
  return {
    ok: true,
    receipt: {
      messageId: normaliseMessageId(rawId, idFromTlv ? ids.submit : ids.receipt),
      rawMessageId: rawId,
      state,
      outcome: receiptOutcome(state),
      source: idFromTlv && stateFromTlv ? 'tlv' : !idFromTlv && !stateFromTlv ? 'text' : 'tlv+text',
      networkErrorCode: input.tlvs.networkErrorCode ?? null,
      error: text?.err ?? null,
      text,
    },
  };
}
