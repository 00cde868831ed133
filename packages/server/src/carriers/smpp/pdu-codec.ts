// Encoding and decoding of whole PDUs (SMPP 3.4 chapter 4). Decoding never throws: a
// malformed PDU comes back as a PduDecodeError naming the cause and the command_status
// to answer it with, and the header fields when they could be read.
import { PduDecodeError, PduEncodeError } from './errors.ts';
import {
  CommandId,
  commandName,
  type AlertNotificationPdu,
  type BindPdu,
  type BindRespPdu,
  type DataSmPdu,
  type MessageIdRespPdu,
  type OutbindPdu,
  type Pdu,
  type ShortMessagePdu,
} from './pdu.ts';
import { PduReader, PduWriter } from './pdu-buffer.ts';
import { readTlvs, writeTlvs } from './tlv.ts';

export const HEADER_LENGTH = 16;

/** C-Octet String maxima, NUL included (SMPP 3.4 chapter 4's tables). */
const MAX = {
  systemId: 16,
  password: 9,
  systemType: 13,
  addressRange: 41,
  serviceType: 6,
  smAddr: 21,
  dataSmAddr: 65,
  time: 17,
  messageId: 65,
} as const;

/** The header of a frame: what is known of a PDU before its body is read. */
export interface PduHeader {
  commandLength: number;
  commandId: number;
  commandStatus: number;
  sequenceNumber: number;
}

export type DecodeResult = { ok: true; pdu: Pdu } | { ok: false; error: PduDecodeError };

/** Reads the header of a frame of at least 16 octets. */
export function readHeader(frame: Buffer): PduHeader {
  return {
    commandLength: frame.readUInt32BE(0),
    commandId: frame.readUInt32BE(4),
    commandStatus: frame.readUInt32BE(8),
    sequenceNumber: frame.readUInt32BE(12),
  };
}

function readBind(r: PduReader): Omit<BindPdu, 'command' | 'commandStatus' | 'sequenceNumber'> {
  return {
    systemId: r.cstring('system_id', MAX.systemId),
    password: r.cstring('password', MAX.password),
    systemType: r.cstring('system_type', MAX.systemType),
    interfaceVersion: r.u8('interface_version'),
    addrTon: r.u8('addr_ton'),
    addrNpi: r.u8('addr_npi'),
    addressRange: r.cstring('address_range', MAX.addressRange),
  };
}

type Body<P extends Pdu> = Omit<P, 'command' | 'commandStatus' | 'sequenceNumber'>;

function readShortMessage(r: PduReader): Body<ShortMessagePdu> {
  const head = {
    serviceType: r.cstring('service_type', MAX.serviceType),
    sourceAddrTon: r.u8('source_addr_ton'),
    sourceAddrNpi: r.u8('source_addr_npi'),
    sourceAddr: r.cstring('source_addr', MAX.smAddr),
    destAddrTon: r.u8('dest_addr_ton'),
    destAddrNpi: r.u8('dest_addr_npi'),
    destinationAddr: r.cstring('destination_addr', MAX.smAddr),
    esmClass: r.u8('esm_class'),
    protocolId: r.u8('protocol_id'),
    priorityFlag: r.u8('priority_flag'),
    scheduleDeliveryTime: r.cstring('schedule_delivery_time', MAX.time),
    validityPeriod: r.cstring('validity_period', MAX.time),
    registeredDelivery: r.u8('registered_delivery'),
    replaceIfPresentFlag: r.u8('replace_if_present_flag'),
    dataCoding: r.u8('data_coding'),
    smDefaultMsgId: r.u8('sm_default_msg_id'),
  };
  const smLength = r.u8('sm_length');
  const shortMessage = r.octets('short_message', smLength);
  return { ...head, shortMessage, tlvs: readTlvs(r) };
}

function readDataSm(r: PduReader): Body<DataSmPdu> {
  return {
    serviceType: r.cstring('service_type', MAX.serviceType),
    sourceAddrTon: r.u8('source_addr_ton'),
    sourceAddrNpi: r.u8('source_addr_npi'),
    sourceAddr: r.cstring('source_addr', MAX.dataSmAddr),
    destAddrTon: r.u8('dest_addr_ton'),
    destAddrNpi: r.u8('dest_addr_npi'),
    destinationAddr: r.cstring('destination_addr', MAX.dataSmAddr),
    esmClass: r.u8('esm_class'),
    registeredDelivery: r.u8('registered_delivery'),
    dataCoding: r.u8('data_coding'),
    tlvs: readTlvs(r),
  };
}

function readAlert(r: PduReader): Body<AlertNotificationPdu> {
  return {
    sourceAddrTon: r.u8('source_addr_ton'),
    sourceAddrNpi: r.u8('source_addr_npi'),
    sourceAddr: r.cstring('source_addr', MAX.dataSmAddr),
    esmeAddrTon: r.u8('esme_addr_ton'),
    esmeAddrNpi: r.u8('esme_addr_npi'),
    esmeAddr: r.cstring('esme_addr', MAX.dataSmAddr),
    tlvs: readTlvs(r),
  };
}

/**
 * A response body: read whole when the status is OK; when it is not, SMPP 3.4 says the
 * body is left out, and one that is there anyway is read if it can be and else ignored,
 * since the status alone is the answer.
 */
function readResponse<T>(r: PduReader, status: number, read: () => T, empty: T): T {
  if (status !== 0 && r.remaining === 0) return empty;
  if (status === 0) return read();
  try {
    return read();
  } catch {
    return empty;
  }
}

function decodeBody(name: Pdu['command'], status: number, r: PduReader): Body<Pdu> {
  switch (name) {
    case 'bind_transmitter':
    case 'bind_receiver':
    case 'bind_transceiver':
      return readBind(r);
    case 'bind_transmitter_resp':
    case 'bind_receiver_resp':
    case 'bind_transceiver_resp':
      return readResponse<Body<BindRespPdu>>(
        r,
        status,
        () => ({ systemId: r.cstring('system_id', MAX.systemId), tlvs: readTlvs(r) }),
        { systemId: '', tlvs: {} },
      );
    case 'outbind':
      return {
        systemId: r.cstring('system_id', MAX.systemId),
        password: r.cstring('password', MAX.password),
      } satisfies Body<OutbindPdu>;
    case 'unbind':
    case 'unbind_resp':
    case 'enquire_link':
    case 'enquire_link_resp':
    case 'generic_nack':
      return {};
    case 'submit_sm':
    case 'deliver_sm':
      return readShortMessage(r);
    case 'submit_sm_resp':
    case 'deliver_sm_resp':
    case 'data_sm_resp':
      return readResponse<Body<MessageIdRespPdu>>(
        r,
        status,
        () => {
          // deliver_sm_resp's message_id is "unused, set to NULL"; some SMSCs leave it out.
          if (name === 'deliver_sm_resp' && r.remaining === 0) return { messageId: '', tlvs: {} };
          return { messageId: r.cstring('message_id', MAX.messageId), tlvs: readTlvs(r) };
        },
        { messageId: '', tlvs: {} },
      );
    case 'data_sm':
      return readDataSm(r);
    case 'alert_notification':
      return readAlert(r);
  }
}

/** The PDUs that are a header alone; octets after their header carry nothing and are ignored. */
const HEADER_ONLY = new Set<string>([
  'unbind',
  'unbind_resp',
  'enquire_link',
  'enquire_link_resp',
  'generic_nack',
]);

const DECODED = new Set<string>([
  'bind_transmitter',
  'bind_receiver',
  'bind_transceiver',
  'bind_transmitter_resp',
  'bind_receiver_resp',
  'bind_transceiver_resp',
  'outbind',
  'unbind',
  'unbind_resp',
  'enquire_link',
  'enquire_link_resp',
  'generic_nack',
  'submit_sm',
  'deliver_sm',
  'submit_sm_resp',
  'deliver_sm_resp',
  'data_sm_resp',
  'data_sm',
  'alert_notification',
]);

/**
 * Decodes one frame (a whole PDU, as the framer cuts them). Unknown or unsupported
 * command ids, lengths that disagree with the frame, unterminated or overlong strings
 * and TLVs running past the end come back as errors, never as exceptions.
 */
export function decodePdu(frame: Buffer): DecodeResult {
  if (frame.length < HEADER_LENGTH) {
    return {
      ok: false,
      error: new PduDecodeError('bad_command_length', `${frame.length} octets, under a header`),
    };
  }
  const header = readHeader(frame);
  const fail = (error: PduDecodeError): DecodeResult => {
    error.commandId = header.commandId;
    error.sequenceNumber = header.sequenceNumber;
    return { ok: false, error };
  };
  if (header.commandLength !== frame.length) {
    return fail(
      new PduDecodeError(
        'bad_command_length',
        `command_length ${header.commandLength}, frame ${frame.length} octets`,
      ),
    );
  }
  const name = commandName(header.commandId);
  if (name === undefined || !DECODED.has(name)) {
    const hex = `0x${header.commandId.toString(16).padStart(8, '0')}`;
    return fail(new PduDecodeError('unknown_command', `command_id ${hex} is not supported`));
  }
  const reader = new PduReader(frame, HEADER_LENGTH);
  try {
    const body = decodeBody(name as Pdu['command'], header.commandStatus, reader);
    if (reader.remaining > 0 && !HEADER_ONLY.has(name)) {
      throw new PduDecodeError('trailing_bytes', `${reader.remaining} octets after the body`);
    }
    const pdu = {
      command: name,
      commandStatus: header.commandStatus,
      sequenceNumber: header.sequenceNumber,
      ...body,
    } as Pdu;
    return { ok: true, pdu };
  } catch (error) {
    if (error instanceof PduDecodeError) return fail(error);
    // A RangeError from Buffer would be a bug in the bounds checks; it is still not thrown.
    return fail(new PduDecodeError('truncated', String(error)));
  }
}

function writeBody(w: PduWriter, pdu: Pdu): void {
  switch (pdu.command) {
    case 'bind_transmitter':
    case 'bind_receiver':
    case 'bind_transceiver':
      w.cstring('system_id', pdu.systemId, MAX.systemId);
      w.cstring('password', pdu.password, MAX.password);
      w.cstring('system_type', pdu.systemType, MAX.systemType);
      w.u8(pdu.interfaceVersion).u8(pdu.addrTon).u8(pdu.addrNpi);
      w.cstring('address_range', pdu.addressRange, MAX.addressRange);
      return;
    case 'bind_transmitter_resp':
    case 'bind_receiver_resp':
    case 'bind_transceiver_resp':
      if (pdu.commandStatus !== 0) return;
      w.cstring('system_id', pdu.systemId, MAX.systemId);
      writeTlvs(w, pdu.tlvs);
      return;
    case 'outbind':
      w.cstring('system_id', pdu.systemId, MAX.systemId);
      w.cstring('password', pdu.password, MAX.password);
      return;
    case 'unbind':
    case 'unbind_resp':
    case 'enquire_link':
    case 'enquire_link_resp':
    case 'generic_nack':
      return;
    case 'submit_sm':
    case 'deliver_sm':
      writeShortMessage(w, pdu);
      return;
    case 'submit_sm_resp':
    case 'data_sm_resp':
      if (pdu.commandStatus !== 0) return;
      w.cstring('message_id', pdu.messageId, MAX.messageId);
      writeTlvs(w, pdu.tlvs);
      return;
    case 'deliver_sm_resp':
      w.cstring('message_id', pdu.messageId, MAX.messageId);
      writeTlvs(w, pdu.tlvs);
      return;
    case 'data_sm':
      w.cstring('service_type', pdu.serviceType, MAX.serviceType);
      w.u8(pdu.sourceAddrTon).u8(pdu.sourceAddrNpi);
      w.cstring('source_addr', pdu.sourceAddr, MAX.dataSmAddr);
      w.u8(pdu.destAddrTon).u8(pdu.destAddrNpi);
      w.cstring('destination_addr', pdu.destinationAddr, MAX.dataSmAddr);
      w.u8(pdu.esmClass).u8(pdu.registeredDelivery).u8(pdu.dataCoding);
      writeTlvs(w, pdu.tlvs);
      return;
    case 'alert_notification':
      w.u8(pdu.sourceAddrTon).u8(pdu.sourceAddrNpi);
      w.cstring('source_addr', pdu.sourceAddr, MAX.dataSmAddr);
      w.u8(pdu.esmeAddrTon).u8(pdu.esmeAddrNpi);
      w.cstring('esme_addr', pdu.esmeAddr, MAX.dataSmAddr);
      writeTlvs(w, pdu.tlvs);
      return;
  }
}

function writeShortMessage(w: PduWriter, pdu: ShortMessagePdu): void {
  w.cstring('service_type', pdu.serviceType, MAX.serviceType);
  w.u8(pdu.sourceAddrTon).u8(pdu.sourceAddrNpi);
  w.cstring('source_addr', pdu.sourceAddr, MAX.smAddr);
  w.u8(pdu.destAddrTon).u8(pdu.destAddrNpi);
  w.cstring('destination_addr', pdu.destinationAddr, MAX.smAddr);
  w.u8(pdu.esmClass).u8(pdu.protocolId).u8(pdu.priorityFlag);
  w.cstring('schedule_delivery_time', pdu.scheduleDeliveryTime, MAX.time);
  w.cstring('validity_period', pdu.validityPeriod, MAX.time);
  w.u8(pdu.registeredDelivery).u8(pdu.replaceIfPresentFlag).u8(pdu.dataCoding);
  w.u8(pdu.smDefaultMsgId);
  if (pdu.shortMessage.length > 254) {
    throw new PduEncodeError(
      `short_message: ${pdu.shortMessage.length} octets, at most 254 (use message_payload)`,
    );
  }
  w.u8(pdu.shortMessage.length).octets(pdu.shortMessage);
  writeTlvs(w, pdu.tlvs);
}

/** Encodes a PDU; throws a PduEncodeError for a field the specification does not allow. */
export function encodePdu(pdu: Pdu): Buffer {
  const body = new PduWriter();
  writeBody(body, pdu);
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt32BE(HEADER_LENGTH + body.length, 0);
  header.writeUInt32BE(CommandId[pdu.command], 4);
  header.writeUInt32BE(pdu.commandStatus >>> 0, 8);
  header.writeUInt32BE(pdu.sequenceNumber >>> 0, 12);
  return Buffer.concat([header, body.toBuffer()]);
}
