// Cuts a TCP byte stream into PDUs by their command_length. A length under a header or
// over the cap cannot be resynchronised from (where the next PDU starts is unknown), so the
// framer reports it once and takes nothing more: the connection has to go.
import { HEADER_LENGTH } from './pdu-codec.ts';

/** The largest PDU accepted by default: far above any SMPP 3.4 PDU with a 64 KiB payload TLV. */
export const DEFAULT_MAX_PDU_LENGTH = 70 * 1024;

/** A command_length that makes the rest of the stream unreadable. */
export class FramingError extends Error {
  readonly commandLength: number;
  /** From the header, when its 16 octets had arrived. */
  readonly commandId: number | undefined;
  readonly sequenceNumber: number | undefined;
  constructor(commandLength: number, max: number, header: Buffer) {
    super(
      commandLength < HEADER_LENGTH
        ? `command_length ${commandLength} is under the ${HEADER_LENGTH}-octet header`
        : `command_length ${commandLength} is over the ${max}-octet cap`,
    );
    this.name = 'FramingError';
    this.commandLength = commandLength;
    this.commandId = header.length >= 8 ? header.readUInt32BE(4) : undefined;
    this.sequenceNumber = header.length >= 16 ? header.readUInt32BE(12) : undefined;
  }
}

export type FrameEvent = { kind: 'frame'; frame: Buffer } | { kind: 'error'; error: FramingError };

export class PduFramer {
  readonly #max: number;
  #pending: Buffer = Buffer.alloc(0);
  #failed = false;

  constructor(maxLength = DEFAULT_MAX_PDU_LENGTH) {
    this.#max = maxLength;
  }

  /** True once a framing error was reported; nothing more is framed after it. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Octets received and not yet part of a whole PDU. */
  get buffered(): number {
    return this.#pending.length;
  }

  /** Takes the next chunk of the stream and returns the whole PDUs it completes, in order. */
  push(chunk: Buffer): FrameEvent[] {
    if (this.#failed) return [];
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const events: FrameEvent[] = [];
    let offset = 0;
    while (this.#pending.length - offset >= 4) {
      const length = this.#pending.readUInt32BE(offset);
      if (length < HEADER_LENGTH || length > this.#max) {
        this.#failed = true;
        events.push({
          kind: 'error',
          error: new FramingError(length, this.#max, this.#pending.subarray(offset, offset + 16)),
        });
        this.#pending = Buffer.alloc(0);
        return events;
      }
      if (this.#pending.length - offset < length) break;
      // A copy, so one retained PDU does not keep the whole chunk alive.
      events.push({
        kind: 'frame',
        frame: Buffer.from(this.#pending.subarray(offset, offset + length)),
      });
      offset += length;
    }
    this.#pending = offset === 0 ? this.#pending : Buffer.from(this.#pending.subarray(offset));
    return events;
  }
}
