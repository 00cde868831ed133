// One TCP (or TLS) connection to an SMSC, bound once: framing, sequence numbers, requests
// awaiting their response with a timeout, enquire_link on idle, and the answers SMPP
// requires whatever the application does (enquire_link_resp, unbind_resp, generic_nack).
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import {
  ConnectionLost,
  MalformedResponse,
  NotSent,
  PduEncodeError,
  ResponseTimeout,
  SmppStatusError,
  type PduDecodeError,
} from './errors.ts';
import { PduFramer, type FramingError } from './framer.ts';
import {
  CommandStatus,
  RESPONSE_OF,
  commandName,
  describeStatus,
  isResponseId,
  nextSequenceNumber,
  type BindCommand,
  type Pdu,
} from './pdu.ts';
import { decodePdu, encodePdu } from './pdu-codec.ts';
import type { Timers } from './pacing.ts';

export interface LinkOptions {
  host: string;
  port: number;
  /** TLS (options for node:tls, or true for the defaults); plain TCP when absent. */
  tls?: boolean | ConnectionOptions;
  bind: {
    command: BindCommand;
    systemId: string;
    password: string;
    systemType: string;
    addressRange: string;
  };
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  enquireLinkIntervalMs: number;
  /** Most requests outstanding at once; an idle enquire_link is not sent past it. */
  maxOutstanding: number;
  maxPduLength: number;
  timers: Timers;
  /** Answers a request from the SMSC (deliver_sm, data_sm, …): the response, or null for none. */
  onRequest: (pdu: Pdu) => Promise<Pdu | null>;
  /** Called once, when the connection has closed for whatever reason. */
  onClose: (reason: string) => void;
  log: (level: 'info' | 'warn', message: string) => void;
}

interface Outstanding {
  command: string;
  resolve: (pdu: Pdu) => void;
  reject: (error: Error) => void;
  timer: unknown;
}

export class SmppLink {
  readonly #o: LinkOptions;
  #socket: Socket | null = null;
  #corked = false;
  readonly #framer: PduFramer;
  #sequence = 0;
  readonly #outstanding = new Map<number, Outstanding>();
  #closed = false;
  #bound = false;
  #lastActivity = 0;
  #enquireTimer: unknown = null;

  constructor(options: LinkOptions) {
    this.#o = options;
    this.#framer = new PduFramer(options.maxPduLength);
  }

  get bound(): boolean {
    return this.#bound && !this.#closed;
  }

  /** Requests written and not yet answered. */
  get outstanding(): number {
    return this.#outstanding.size;
  }

  /** Connects and binds; rejects with the reason (a socket error, or the SMSC's status). */
  async open(): Promise<void> {
    await this.#connect();
    const { command, systemId, password, systemType, addressRange } = this.#o.bind;
    const response = await this.request({
      command,
      commandStatus: 0,
      sequenceNumber: 0,
      systemId,
      password,
      systemType,
      interfaceVersion: 0x34,
      addrTon: 0,
      addrNpi: 0,
      addressRange,
    });
    if (response.commandStatus !== CommandStatus.ESME_ROK) {
      this.close(`${command} refused: ${describeStatus(response.commandStatus)}`);
      throw new SmppStatusError(command, response.commandStatus);
    }
    this.#bound = true;
    this.#scheduleEnquire();
  }

  #connect(): Promise<void> {
    const { host, port, tls } = this.#o;
    return new Promise((resolve, reject) => {
      const socket = tls
        ? tlsConnect({ host, port, ...(tls === true ? {} : tls) })
        : netConnect({ host, port });
      this.#socket = socket;
      socket.setNoDelay(true);
      const timer = this.#o.timers.setTimeout(() => {
        socket.destroy(new Error(`connect timed out after ${this.#o.connectTimeoutMs} ms`));
      }, this.#o.connectTimeoutMs);
      let connected = false;
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        connected = true;
        this.#o.timers.clearTimeout(timer);
        this.#lastActivity = this.#o.timers.now();
        resolve();
      });
      socket.on('data', (chunk: Buffer) => this.#receive(chunk));
      socket.on('error', (error) => {
        this.#o.timers.clearTimeout(timer);
        if (!connected) reject(error);
        this.close(error.message);
      });
      socket.on('close', () => {
        this.#o.timers.clearTimeout(timer);
        if (!connected) reject(new Error('connection closed before it was established'));
        this.close(this.#bound ? 'the SMSC closed the connection' : 'closed while binding');
      });
    });
  }

  #nextSequence(): number {
    this.#sequence = nextSequenceNumber(this.#sequence, (n) => this.#outstanding.has(n));
    return this.#sequence;
  }

  /** Sends a request; resolves with its response (any status) or rejects (timeout, loss). */
  request(pdu: Pdu): Promise<Pdu> {
    return new Promise((resolve, reject) => {
      if (this.#closed || !this.#socket) {
        reject(new NotSent(`${pdu.command} not sent: the connection is closed`));
        return;
      }
      const sequenceNumber = this.#nextSequence();
      let bytes: Buffer;
      try {
        bytes = encodePdu({ ...pdu, sequenceNumber });
      } catch (error) {
        reject(error instanceof PduEncodeError ? error : new PduEncodeError(String(error)));
        return;
      }
      const timeoutMs = this.#o.responseTimeoutMs;
      const timer = this.#o.timers.setTimeout(() => {
        this.#outstanding.delete(sequenceNumber);
        reject(new ResponseTimeout(pdu.command, sequenceNumber, timeoutMs));
        // A missing answer to the keep-alive means the link is dead.
        if (pdu.command === 'enquire_link') this.close('no enquire_link_resp in time');
      }, timeoutMs);
      this.#outstanding.set(sequenceNumber, { command: pdu.command, resolve, reject, timer });
      this.#write(bytes);
    });
  }

  /** Sends a response (or outbind-like PDU that expects none). */
  send(pdu: Pdu): void {
    if (this.#closed) return;
    try {
      this.#write(encodePdu(pdu));
    } catch (error) {
      this.#o.log('warn', `could not encode ${pdu.command}: ${String(error)}`);
    }
  }

  // PDUs written in one turn (a window's submit_sm, a batch's deliver_sm_resp) leave in one
  // writev: with Nagle off, each write was a segment and a syscall of its own on both ends.
  #write(bytes: Buffer): void {
    this.#lastActivity = this.#o.timers.now();
    const socket = this.#socket;
    if (!socket) return;
    if (!this.#corked) {
      this.#corked = true;
      socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        socket.uncork();
      });
    }
    socket.write(bytes);
  }

  #receive(chunk: Buffer): void {
    this.#lastActivity = this.#o.timers.now();
    for (const event of this.#framer.push(chunk)) {
      if (event.kind === 'error') {
        this.#framingError(event.error);
        return;
      }
      const decoded = decodePdu(event.frame);
      if (decoded.ok) this.#dispatch(decoded.pdu);
      else this.#malformed(decoded.error);
    }
  }

  /** The stream cannot be read past a bad command_length: nack it, unbind, close. */
  #framingError(error: FramingError): void {
    this.#o.log('warn', `framing error: ${error.message}`);
    this.send({
      command: 'generic_nack',
      commandStatus: CommandStatus.ESME_RINVCMDLEN,
      sequenceNumber: error.sequenceNumber ?? 0,
    });
    this.send({ command: 'unbind', commandStatus: 0, sequenceNumber: this.#nextSequence() });
    this.close(`framing error: ${error.message}`);
  }

  #malformed(error: PduDecodeError): void {
    const id = error.commandId ?? 0;
    const sequenceNumber = error.sequenceNumber ?? 0;
    if (isResponseId(id)) {
      const waiting = this.#take(sequenceNumber);
      const name = commandName(id) ?? 'response';
      if (waiting) waiting.reject(new MalformedResponse(waiting.command, error));
      this.#o.log('warn', `malformed ${name} (sequence ${sequenceNumber}): ${error.message}`);
      return;
    }
    this.#o.log('warn', `malformed request (sequence ${sequenceNumber}): ${error.message}`);
    const name = commandName(id);
    const response =
      name && name in RESPONSE_OF ? RESPONSE_OF[name as keyof typeof RESPONSE_OF] : null;
    if (response === 'deliver_sm_resp' || response === 'data_sm_resp') {
      this.send({
        command: response,
        commandStatus: error.status,
        sequenceNumber,
        messageId: '',
        tlvs: {},
      });
    } else {
      this.send({ command: 'generic_nack', commandStatus: error.status, sequenceNumber });
    }
  }

  #take(sequenceNumber: number): Outstanding | undefined {
    const waiting = this.#outstanding.get(sequenceNumber);
    if (!waiting) return undefined;
    this.#outstanding.delete(sequenceNumber);
    this.#o.timers.clearTimeout(waiting.timer);
    return waiting;
  }

  #dispatch(pdu: Pdu): void {
    if (pdu.command === 'generic_nack' || pdu.command.endsWith('_resp')) {
      const waiting = this.#take(pdu.sequenceNumber);
      if (waiting) waiting.resolve(pdu);
      else this.#o.log('warn', `${pdu.command} for unknown sequence ${pdu.sequenceNumber}`);
      if (pdu.command === 'unbind_resp') this.close('unbound');
      return;
    }
    switch (pdu.command) {
      case 'enquire_link':
        this.send({
          command: 'enquire_link_resp',
          commandStatus: 0,
          sequenceNumber: pdu.sequenceNumber,
        });
        return;
      case 'unbind':
        this.send({ command: 'unbind_resp', commandStatus: 0, sequenceNumber: pdu.sequenceNumber });
        this.close('the SMSC unbound');
        return;
      case 'deliver_sm':
      case 'data_sm':
      case 'alert_notification':
        this.#o.onRequest(pdu).then(
          (response) => {
            if (response) this.send(response);
          },
          (error: unknown) =>
            this.#o.log('warn', `handling ${pdu.command} failed: ${String(error)}`),
        );
        return;
      default:
        // What an ESME is never sent (submit_sm, bind, outbind on a bound link…).
        this.send({
          command: 'generic_nack',
          commandStatus: CommandStatus.ESME_RINVCMDID,
          sequenceNumber: pdu.sequenceNumber,
        });
    }
  }

  #scheduleEnquire(): void {
    const interval = this.#o.enquireLinkIntervalMs;
    if (!(interval > 0) || this.#closed) return;
    const idle = this.#o.timers.now() - this.#lastActivity;
    this.#enquireTimer = this.#o.timers.setTimeout(
      () => {
        this.#enquireTimer = null;
        if (this.#closed) return;
        const quiet = this.#o.timers.now() - this.#lastActivity >= interval;
        if (quiet && this.outstanding < this.#o.maxOutstanding) {
          this.request({ command: 'enquire_link', commandStatus: 0, sequenceNumber: 0 }).catch(
            () => {}, // a timeout closes the link; nothing else to do here
          );
        }
        this.#scheduleEnquire();
      },
      Math.max(1, interval - idle),
    );
  }

  /** Sends unbind and waits (one response timeout at most) for its answer, then closes. */
  async unbind(): Promise<void> {
    if (this.#closed) return;
    if (this.#bound) {
      await this.request({ command: 'unbind', commandStatus: 0, sequenceNumber: 0 }).catch(
        () => {},
      );
    }
    this.close('unbound');
  }

  /** Closes now: outstanding requests reject with ConnectionLost (their outcome unknown). */
  close(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#bound = false;
    if (this.#enquireTimer !== null) this.#o.timers.clearTimeout(this.#enquireTimer);
    for (const [sequenceNumber, waiting] of this.#outstanding) {
      this.#o.timers.clearTimeout(waiting.timer);
      this.#outstanding.delete(sequenceNumber);
      waiting.reject(new ConnectionLost(waiting.command, reason));
    }
    // end() flushes what was written (a generic_nack, an unbind_resp) before the FIN; a
    // peer that never closes its side is cut off a second later. Not an injected timer:
    // it only releases the socket, and must not hold the process open.
    const socket = this.#socket;
    socket?.end();
    if (socket) setTimeout(() => socket.destroy(), 1_000).unref();
    this.#o.onClose(reason);
  }
}
