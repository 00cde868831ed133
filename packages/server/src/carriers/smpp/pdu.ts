// SMPP 3.4 vocabulary: command ids, command_status codes and the shapes of the PDUs this
// ESME sends or understands. Field names follow the specification's, in camelCase.
import type { Tlvs } from './tlv.ts';

/** command_id values (SMPP 3.4 section 5.1.2.1). A response is its request's id | 0x80000000. */
export const CommandId = {
  generic_nack: 0x80000000,
  bind_receiver: 0x00000001,
  bind_receiver_resp: 0x80000001,
  bind_transmitter: 0x00000002,
  bind_transmitter_resp: 0x80000002,
  query_sm: 0x00000003,
  query_sm_resp: 0x80000003,
  submit_sm: 0x00000004,
  submit_sm_resp: 0x80000004,
  deliver_sm: 0x00000005,
  deliver_sm_resp: 0x80000005,
  unbind: 0x00000006,
  unbind_resp: 0x80000006,
  replace_sm: 0x00000007,
  replace_sm_resp: 0x80000007,
  cancel_sm: 0x00000008,
  cancel_sm_resp: 0x80000008,
  bind_transceiver: 0x00000009,
  bind_transceiver_resp: 0x80000009,
  outbind: 0x0000000b,
  enquire_link: 0x00000015,
  enquire_link_resp: 0x80000015,
  submit_multi: 0x00000021,
  submit_multi_resp: 0x80000021,
  alert_notification: 0x00000102,
  data_sm: 0x00000103,
  data_sm_resp: 0x80000103,
} as const;

export type CommandName = keyof typeof CommandId;

const COMMAND_NAMES = new Map<number, CommandName>(
  Object.entries(CommandId).map(([name, id]) => [id, name as CommandName]),
);

/** The name of a command id, or undefined for one SMPP 3.4 does not define. */
export function commandName(id: number): CommandName | undefined {
  return COMMAND_NAMES.get(id);
}

/** True for a response command id (the high bit set). */
export function isResponseId(id: number): boolean {
  return (id & 0x80000000) !== 0;
}

/** The largest sequence_number; the one after it is 1 again (SMPP 3.4 section 3.2). */
export const MAX_SEQUENCE_NUMBER = 0x7fffffff;

/** The sequence_number after `current` that `taken` does not hold (numbers still awaiting an answer). */
export function nextSequenceNumber(
  current: number,
  taken: (n: number) => boolean = () => false,
): number {
  let next = current;
  for (let tries = 0; tries < MAX_SEQUENCE_NUMBER; tries++) {
    next = next >= MAX_SEQUENCE_NUMBER || next < 1 ? 1 : next + 1;
    if (!taken(next)) return next;
  }
  throw new Error('every sequence number is awaiting an answer');
}

/** command_status values (SMPP 3.4 section 5.1.3). */
export const CommandStatus = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RINVPRTFLG: 0x06,
  ESME_RINVREGDLVFLG: 0x07,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RINVMSGID: 0x0c,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RINVSYSID: 0x0f,
  ESME_RCANCELFAIL: 0x11,
  ESME_RREPLACEFAIL: 0x13,
  ESME_RMSGQFUL: 0x14,
  ESME_RINVSERTYP: 0x15,
  ESME_RINVNUMDESTS: 0x33,
  ESME_RINVDLNAME: 0x34,
  ESME_RINVDESTFLAG: 0x40,
  ESME_RINVSUBREP: 0x42,
  ESME_RINVESMCLASS: 0x43,
  ESME_RCNTSUBDL: 0x44,
  ESME_RSUBMITFAIL: 0x45,
  ESME_RINVSRCTON: 0x48,
  ESME_RINVSRCNPI: 0x49,
  ESME_RINVDSTTON: 0x50,
  ESME_RINVDSTNPI: 0x51,
  ESME_RINVSYSTYP: 0x53,
  ESME_RINVREPFLAG: 0x54,
  ESME_RINVNUMMSGS: 0x55,
  ESME_RTHROTTLED: 0x58,
  ESME_RINVSCHED: 0x61,
  ESME_RINVEXPIRY: 0x62,
  ESME_RINVDFTMSGID: 0x63,
  ESME_RX_T_APPN: 0x64,
  ESME_RX_P_APPN: 0x65,
  ESME_RX_R_APPN: 0x66,
  ESME_RQUERYFAIL: 0x67,
  ESME_RINVOPTPARSTREAM: 0xc0,
  ESME_ROPTPARNOTALLWD: 0xc1,
  ESME_RINVPARLEN: 0xc2,
  ESME_RMISSINGOPTPARAM: 0xc3,
  ESME_RINVOPTPARAMVAL: 0xc4,
  ESME_RDELIVERYFAILURE: 0xfe,
  ESME_RUNKNOWNERR: 0xff,
} as const;

/** SMPP 5.0's name for ESME_RINVOPTPARSTREAM (0xC0); the same code. */
export const ESME_RINVTLVSTREAM = CommandStatus.ESME_RINVOPTPARSTREAM;

const STATUS_NAMES = new Map<number, string>(
  Object.entries(CommandStatus).map(([name, code]) => [code, name]),
);

/** A command_status for people and logs: `ESME_RINVPASWD (0x0E)`, or `0x0400` when unnamed. */
export function describeStatus(status: number): string {
  const hex = `0x${status.toString(16).toUpperCase().padStart(2, '0')}`;
  const name = STATUS_NAMES.get(status);
  return name ? `${name} (${hex})` : `command_status ${hex}`;
}

/** Type of number and numbering plan (5.2.5, 5.2.6): what this ESME sends for E.164. */
export const TON_INTERNATIONAL = 1;
export const NPI_ISDN = 1;

/** esm_class bits (5.2.12). */
export const EsmClass = {
  /** Message type bits 2..5. */
  TYPE_MASK: 0x3c,
  DELIVERY_RECEIPT: 0x04,
  DELIVERY_ACK: 0x08,
  USER_ACK: 0x10,
  INTERMEDIATE_NOTIFICATION: 0x20,
  /** The short message begins with a User Data Header. */
  UDHI: 0x40,
} as const;

/** data_coding values this ESME reads or writes (5.2.19). */
export const DataCoding = {
  /** The SMSC default alphabet; GSM 03.38 here, as SMSCs take it. */
  DEFAULT: 0x00,
  IA5: 0x01,
  LATIN1: 0x03,
  UCS2: 0x08,
} as const;

/** Every PDU's header fields besides its command. */
interface Header {
  commandStatus: number;
  sequenceNumber: number;
}

export type BindCommand = 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver';

export interface BindPdu extends Header {
  command: BindCommand;
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  addrTon: number;
  addrNpi: number;
  addressRange: string;
}

export interface BindRespPdu extends Header {
  command: `${BindCommand}_resp`;
  systemId: string;
  tlvs: Tlvs;
}

export interface OutbindPdu extends Header {
  command: 'outbind';
  systemId: string;
  password: string;
}

/** The PDUs that are a header alone. */
export interface EmptyPdu extends Header {
  command: 'unbind' | 'unbind_resp' | 'enquire_link' | 'enquire_link_resp' | 'generic_nack';
}

/** submit_sm and deliver_sm share one layout (4.4.1, 4.6.1). */
export interface ShortMessagePdu extends Header {
  command: 'submit_sm' | 'deliver_sm';
  serviceType: string;
  sourceAddrTon: number;
  sourceAddrNpi: number;
  sourceAddr: string;
  destAddrTon: number;
  destAddrNpi: number;
  destinationAddr: string;
  esmClass: number;
  protocolId: number;
  priorityFlag: number;
  scheduleDeliveryTime: string;
  validityPeriod: string;
  registeredDelivery: number;
  replaceIfPresentFlag: number;
  dataCoding: number;
  smDefaultMsgId: number;
  shortMessage: Buffer;
  tlvs: Tlvs;
}

export interface MessageIdRespPdu extends Header {
  command: 'submit_sm_resp' | 'deliver_sm_resp' | 'data_sm_resp';
  messageId: string;
  tlvs: Tlvs;
}

export interface DataSmPdu extends Header {
  command: 'data_sm';
  serviceType: string;
  sourceAddrTon: number;
  sourceAddrNpi: number;
  sourceAddr: string;
  destAddrTon: number;
  destAddrNpi: number;
  destinationAddr: string;
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  tlvs: Tlvs;
}

export interface AlertNotificationPdu extends Header {
  command: 'alert_notification';
  sourceAddrTon: number;
  sourceAddrNpi: number;
  sourceAddr: string;
  esmeAddrTon: number;
  esmeAddrNpi: number;
  esmeAddr: string;
  tlvs: Tlvs;
}

/** Every PDU this codec encodes or decodes. */
export type Pdu =
  | BindPdu
  | BindRespPdu
  | OutbindPdu
  | EmptyPdu
  | ShortMessagePdu
  | MessageIdRespPdu
  | DataSmPdu
  | AlertNotificationPdu;

/** The PDU of one command, by name. */
export type PduOf<C extends Pdu['command']> = Extract<Pdu, { command: C }>;

/** The response command of each request this ESME answers or expects an answer to. */
export const RESPONSE_OF = {
  bind_transmitter: 'bind_transmitter_resp',
  bind_receiver: 'bind_receiver_resp',
  bind_transceiver: 'bind_transceiver_resp',
  unbind: 'unbind_resp',
  enquire_link: 'enquire_link_resp',
  submit_sm: 'submit_sm_resp',
  deliver_sm: 'deliver_sm_resp',
  data_sm: 'data_sm_resp',
} as const satisfies Partial<Record<Pdu['command'], Pdu['command']>>;

/** The defaults of a submit_sm or deliver_sm, so callers give only what they mean. */
export function shortMessage(
  fields: Partial<Omit<ShortMessagePdu, 'command'>> & { command: ShortMessagePdu['command'] },
): ShortMessagePdu {
  return {
    commandStatus: 0,
    sequenceNumber: 0,
    serviceType: '',
    sourceAddrTon: 0,
    sourceAddrNpi: 0,
    sourceAddr: '',
    destAddrTon: 0,
    destAddrNpi: 0,
    destinationAddr: '',
    esmClass: 0,
    protocolId: 0,
    priorityFlag: 0,
    scheduleDeliveryTime: '',
    validityPeriod: '',
    registeredDelivery: 0,
    replaceIfPresentFlag: 0,
    dataCoding: 0,
    smDefaultMsgId: 0,
    shortMessage: Buffer.alloc(0),
    tlvs: {},
    ...fields,
  };
}
