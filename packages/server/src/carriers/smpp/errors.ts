// The ESME's errors, one class per thing a caller decides differently on: a rejected
// submission, one whose outcome is unknown, one to requeue, one never sent.
import { CommandStatus, describeStatus } from './pdu.ts';

/** Why a PDU could not be decoded. */
export type PduErrorCode =
  | 'truncated'
  | 'bad_command_length'
  | 'unknown_command'
  | 'unterminated_cstring'
  | 'cstring_too_long'
  | 'tlv_overrun'
  | 'bad_tlv_length'
  | 'trailing_bytes';

/** The command_status to answer a PDU that fails to decode with, by cause. */
const ANSWER: Record<PduErrorCode, number> = {
  truncated: CommandStatus.ESME_RINVMSGLEN,
  bad_command_length: CommandStatus.ESME_RINVCMDLEN,
  unknown_command: CommandStatus.ESME_RINVCMDID,
  unterminated_cstring: CommandStatus.ESME_RINVMSGLEN,
  cstring_too_long: CommandStatus.ESME_RINVPARLEN,
  tlv_overrun: CommandStatus.ESME_RINVOPTPARSTREAM,
  bad_tlv_length: CommandStatus.ESME_RINVPARLEN,
  trailing_bytes: CommandStatus.ESME_RINVMSGLEN,
};

/** A PDU (or a TLV, a field) that does not follow SMPP 3.4. Returned by the codec, never thrown past it. */
export class PduDecodeError extends Error {
  readonly code: PduErrorCode;
  /** The command_status a response to this PDU carries. */
  readonly status: number;
  /** The header fields, when the header could be read. */
  commandId: number | undefined;
  sequenceNumber: number | undefined;
  constructor(code: PduErrorCode, message: string) {
    super(message);
    this.name = 'PduDecodeError';
    this.code = code;
    this.status = ANSWER[code];
  }
}

/** A PDU this codec refuses to write (a field too long for the specification). */
export class PduEncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PduEncodeError';
  }
}

/** The base of the errors a session's requests reject with. */
export class SmppError extends Error {
  /** True when the SMSC may or may not have acted on the request (it must not be taken as refused). */
  readonly outcomeUnknown: boolean;
  constructor(message: string, outcomeUnknown: boolean) {
    super(message);
    this.name = 'SmppError';
    this.outcomeUnknown = outcomeUnknown;
  }
}

/** The SMSC answered with a non-zero command_status other than a throttling one. */
export class SmppStatusError extends SmppError {
  readonly status: number;
  constructor(command: string, status: number) {
    super(`${command} refused: ${describeStatus(status)}`, false);
    this.name = 'SmppStatusError';
    this.status = status;
  }
}

/**
 * The SMSC answered ESME_RTHROTTLED or ESME_RMSGQFUL: it did not take the message and
 * the session pauses submitting; the caller requeues. Never a permanent failure.
 */
export class Throttled extends SmppError {
  readonly status: number;
  /** When the session submits again (its clock). */
  readonly resumeAt: number;
  constructor(status: number, resumeAt: number) {
    super(`SMSC is throttling: ${describeStatus(status)}`, false);
    this.name = 'Throttled';
    this.status = status;
    this.resumeAt = resumeAt;
  }
}

/** No response came in time: the SMSC may have taken the request or not. */
export class ResponseTimeout extends SmppError {
  constructor(command: string, sequenceNumber: number, timeoutMs: number) {
    super(`no ${command}_resp for sequence ${sequenceNumber} within ${timeoutMs} ms`, true);
    this.name = 'ResponseTimeout';
  }
}

/** The connection closed after the request was written and before its response. */
export class ConnectionLost extends SmppError {
  constructor(command: string, reason: string) {
    super(`connection lost awaiting ${command}_resp: ${reason}`, true);
    this.name = 'ConnectionLost';
  }
}

/** The request was never written: the session was not bound in time, or it stopped. */
export class NotSent extends SmppError {
  constructor(reason: string) {
    super(reason, false);
    this.name = 'NotSent';
  }
}

/** The SMSC's response could not be decoded: whether it took the request is unknown. */
export class MalformedResponse extends SmppError {
  readonly decodeError: PduDecodeError;
  constructor(command: string, decodeError: PduDecodeError) {
    super(`malformed response to ${command}: ${decodeError.message}`, true);
    this.name = 'MalformedResponse';
    this.decodeError = decodeError;
  }
}
