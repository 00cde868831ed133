// Bounds-checked reading and writing of SMPP's field types: integers, C-Octet Strings
// (NUL-terminated, a maximum length that counts the NUL) and Octet Strings. A read past
// the end or a malformed string throws a PduDecodeError, which the codec returns.
import { PduDecodeError, PduEncodeError } from './errors.ts';

/** Reads fields one after another from `buffer[start, end)`. */
export class PduReader {
  readonly #buffer: Buffer;
  readonly #end: number;
  #offset: number;

  constructor(buffer: Buffer, start = 0, end = buffer.length) {
    this.#buffer = buffer;
    this.#offset = start;
    this.#end = end;
  }

  get remaining(): number {
    return this.#end - this.#offset;
  }

  #need(bytes: number, field: string): void {
    if (this.remaining < bytes) {
      throw new PduDecodeError(
        'truncated',
        `${field}: needs ${bytes} octets, ${this.remaining} left in the PDU`,
      );
    }
  }

  u8(field: string): number {
    this.#need(1, field);
    return this.#buffer.readUInt8(this.#offset++);
  }

  u16(field: string): number {
    this.#need(2, field);
    const value = this.#buffer.readUInt16BE(this.#offset);
    this.#offset += 2;
    return value;
  }

  u32(field: string): number {
    this.#need(4, field);
    const value = this.#buffer.readUInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }

  /** A C-Octet String of at most `max` octets including its NUL; the text is Latin-1 (ASCII in practice). */
  cstring(field: string, max: number): string {
    const limit = Math.min(this.#end, this.#offset + max);
    const nul = this.#buffer.indexOf(0, this.#offset);
    if (nul === -1 || nul >= this.#end) {
      throw new PduDecodeError(
        'unterminated_cstring',
        `${field}: no NUL before the end of the PDU`,
      );
    }
    if (nul >= limit) {
      throw new PduDecodeError(
        'cstring_too_long',
        `${field}: ${nul - this.#offset + 1} octets, at most ${max} allowed`,
      );
    }
    const value = this.#buffer.toString('latin1', this.#offset, nul);
    this.#offset = nul + 1;
    return value;
  }

  /** `length` octets, copied so the PDU's buffer can be released. */
  octets(field: string, length: number): Buffer {
    this.#need(length, field);
    const value = Buffer.from(this.#buffer.subarray(this.#offset, this.#offset + length));
    this.#offset += length;
    return value;
  }
}

/** Appends fields to a growing list of chunks; `toBuffer` joins them. */
export class PduWriter {
  readonly #chunks: Buffer[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  #push(chunk: Buffer): this {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    return this;
  }

  u8(value: number): this {
    const chunk = Buffer.alloc(1);
    chunk.writeUInt8(value & 0xff);
    return this.#push(chunk);
  }

  u16(value: number): this {
    const chunk = Buffer.alloc(2);
    chunk.writeUInt16BE(value & 0xffff);
    return this.#push(chunk);
  }

  u32(value: number): this {
    const chunk = Buffer.alloc(4);
    chunk.writeUInt32BE(value >>> 0);
    return this.#push(chunk);
  }

  /** A C-Octet String; refuses a value longer than `max` with its NUL, or one holding a NUL. */
  cstring(field: string, value: string, max: number): this {
    const bytes = Buffer.from(value, 'latin1');
    if (bytes.length + 1 > max) {
      throw new PduEncodeError(`${field}: ${bytes.length + 1} octets, at most ${max} allowed`);
    }
    if (bytes.includes(0)) throw new PduEncodeError(`${field}: holds a NUL`);
    this.#push(bytes);
    return this.u8(0);
  }

  octets(value: Buffer): this {
    return this.#push(value);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.#chunks, this.#length);
  }
}
