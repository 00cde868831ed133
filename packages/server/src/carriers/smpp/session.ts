// One ESME bind to an SMSC, kept up: binds (one transceiver, or a transmitter and a
// receiver), rebinds with backoff and jitter when the connection goes, submits through a
// window and a throughput cap, pauses when the SMSC throttles, and hands what the SMSC
// delivers to an async handler whose success is what acknowledges it.
import { EventEmitter } from 'node:events';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from '../../lib/logger.ts';
import { toSmppAddress } from './address.ts';
import { NotSent, SmppError, SmppStatusError, Throttled } from './errors.ts';
import { DEFAULT_MAX_PDU_LENGTH } from './framer.ts';
import { classifyDelivery, type DefaultAlphabet, type Delivery, type Inbound } from './inbound.ts';
import { SmppLink } from './link.ts';
import { encodeText } from './gsm7.ts';
import { textParts, type LongMessageMode } from './message-text.ts';
import {
  DEFAULT_BACKOFF,
  TokenBucket,
  backoffDelay,
  systemTimers,
  type BackoffOptions,
  type Timers,
} from './pacing.ts';
import {
  CommandStatus,
  describeStatus,
  shortMessage,
  type AlertNotificationPdu,
  type BindCommand,
  type Pdu,
  type ShortMessagePdu,
} from './pdu.ts';
import { AS_GIVEN, normaliseMessageId, type IdFormats } from './receipt.ts';

export interface SessionOptions {
  host: string;
  port: number;
  tls?: boolean | ConnectionOptions;
  systemId: string;
  password: string;
  systemType?: string;
  addressRange?: string;
  /** One bind_transceiver (default), or a bind_transmitter and a bind_receiver. */
  bindMode?: 'transceiver' | 'pair';
  /** Most requests awaiting a response at once (default 10). */
  window?: number;
  /** Most submit_sm per second (default: no cap). */
  throughput?: number;
  /** Submissions that may go at once after a quiet spell (default 1). */
  burst?: number;
  responseTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Idle time after which an enquire_link is sent (default 30 s; 0 never). */
  enquireLinkIntervalMs?: number;
  /** How long a submission waits to be written (unbound, paused, window full) before NotSent. */
  queueTimeoutMs?: number;
  /** How long submitting pauses after ESME_RTHROTTLED or ESME_RMSGQFUL (default 1 s). */
  throttlePauseMs?: number;
  reconnect?: Partial<BackoffOptions>;
  /** Long texts as UDH-concatenated parts (default) or one message_payload. */
  longMessages?: LongMessageMode;
  /** How this SMSC writes message ids, so receipts match submissions. */
  ids?: IdFormats;
  /** What data_coding 0 means from this SMSC (default GSM 03.38). */
  defaultAlphabet?: DefaultAlphabet;
  maxPduLength?: number;
  timers?: Timers;
  random?: () => number;
  /** What the SMSC delivers; the deliver_sm_resp waits for its promise (ESME_RX_T_APPN if it rejects). */
  onDeliver?: (event: DeliveryEvent) => Promise<void>;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

/** A receipt or a text (or part of one) the SMSC delivered, with its PDU. */
export type DeliveryEvent = Exclude<Inbound, { kind: 'invalid' }> & { pdu: Delivery };

export type SessionState = 'connecting' | 'bound' | 'failed' | 'stopped';

export interface SessionStatus {
  state: SessionState;
  /** Why the last bind failed or the last connection ended, as the SMSC or the socket said. */
  lastError: string | null;
  /** submit_sm written and not yet answered. */
  inFlight: number;
  /** submit_sm waiting to be written. */
  queued: number;
  /** Set while submitting is paused for throttling (the session's clock). */
  pausedUntil: number | null;
}

/** The SMSC's id of an accepted submit_sm: normalised (see receipt.ts) and as written. */
export interface SubmitResult {
  messageId: string;
  rawMessageId: string;
}

export type SubmitFields = Partial<
  Omit<ShortMessagePdu, 'command' | 'commandStatus' | 'sequenceNumber'>
>;

/** The outcome of each part of a text, in order. */
export interface TextSubmission {
  encoding: 'GSM-7' | 'UCS-2';
  reference: number;
  parts: ({ index: number } & (
    { ok: true; result: SubmitResult } | { ok: false; error: SmppError }
  ))[];
}

interface Queued {
  pdu: ShortMessagePdu;
  resolve: (result: SubmitResult) => void;
  reject: (error: Error) => void;
  timer: unknown;
}

const THROTTLING: ReadonlySet<number> = new Set([
  CommandStatus.ESME_RTHROTTLED,
  CommandStatus.ESME_RMSGQFUL,
]);

export class SmppSession extends EventEmitter<{
  status: [SessionStatus];
  alert: [AlertNotificationPdu];
}> {
  readonly #o: SessionOptions;
  readonly #timers: Timers;
  readonly #random: () => number;
  readonly #backoff: BackoffOptions;
  readonly #window: number;
  readonly #responseTimeoutMs: number;
  readonly #bucket: TokenBucket;
  #state: SessionState = 'stopped';
  #lastError: string | null = null;
  #links: SmppLink[] = [];
  #tx: SmppLink | null = null;
  #queue: Queued[] = [];
  #inFlight = 0;
  #settled: (() => void)[] = [];
  #pausedUntil = 0;
  #pumpTimer: unknown = null;
  #reconnectTimer: unknown = null;
  #attempt = 0;
  #reference: number;
  #started = false;
  #stopped = false;

  constructor(options: SessionOptions) {
    super();
    this.#o = options;
    this.#timers = options.timers ?? systemTimers;
    this.#random = options.random ?? Math.random;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.reconnect };
    this.#window = Math.max(1, options.window ?? 10);
    this.#responseTimeoutMs = options.responseTimeoutMs ?? 10_000;
    this.#bucket = new TokenBucket(options.throughput ?? 0, options.burst ?? 1, () =>
      this.#timers.now(),
    );
    this.#reference = Math.floor(this.#random() * 256);
  }

  get status(): SessionStatus {
    const now = this.#timers.now();
    return {
      state: this.#state,
      lastError: this.#lastError,
      inFlight: this.#inFlight,
      queued: this.#queue.length,
      pausedUntil: this.#pausedUntil > now ? this.#pausedUntil : null,
    };
  }

  /** Starts binding, and rebinding whenever the connection is lost, until `stop`. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.#connect();
  }

  #log(level: 'info' | 'warn', message: string): void {
    this.#o.logger?.[level]({ smsc: `${this.#o.host}:${this.#o.port}` }, message);
  }

  #setState(state: SessionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.emit('status', this.status);
  }

  #newLink(command: BindCommand): SmppLink {
    const link: SmppLink = new SmppLink({
      host: this.#o.host,
      port: this.#o.port,
      tls: this.#o.tls,
      bind: {
        command,
        systemId: this.#o.systemId,
        password: this.#o.password,
        systemType: this.#o.systemType ?? '',
        addressRange: this.#o.addressRange ?? '',
      },
      connectTimeoutMs: this.#o.connectTimeoutMs ?? 10_000,
      responseTimeoutMs: this.#responseTimeoutMs,
      enquireLinkIntervalMs: this.#o.enquireLinkIntervalMs ?? 30_000,
      maxOutstanding: this.#window,
      maxPduLength: this.#o.maxPduLength ?? DEFAULT_MAX_PDU_LENGTH,
      timers: this.#timers,
      onRequest: (pdu) => this.#onRequest(pdu),
      onClose: (reason) => this.#onLinkClose(link, reason),
      log: (level, message) => this.#log(level, `${command}: ${message}`),
    });
    return link;
  }

  async #connect(): Promise<void> {
    this.#reconnectTimer = null;
    if (this.#stopped) return;
    this.#setState('connecting');
    const commands: BindCommand[] =
      this.#o.bindMode === 'pair' ? ['bind_transmitter', 'bind_receiver'] : ['bind_transceiver'];
    const links = commands.map((command) => this.#newLink(command));
    this.#links = links;
    try {
      await Promise.all(links.map((link) => link.open()));
    } catch (error) {
      for (const link of links) link.close('bind failed');
      if (this.#links === links) this.#links = [];
      if (this.#stopped) return;
      this.#lastError =
        error instanceof SmppStatusError
          ? describeStatus(error.status)
          : error instanceof Error
            ? error.message
            : String(error);
      this.#log('warn', `bind failed: ${this.#lastError}`);
      this.#setState('failed');
      this.#scheduleReconnect();
      return;
    }
    if (this.#stopped || this.#links !== links) {
      for (const link of links) await link.unbind();
      return;
    }
    this.#tx = links[0]!;
    this.#attempt = 0;
    this.#lastError = null;
    this.#log('info', 'bound');
    this.#setState('bound');
    this.#pump();
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnectTimer !== null) return;
    const delay = backoffDelay(this.#attempt++, this.#backoff, this.#random);
    this.#reconnectTimer = this.#timers.setTimeout(() => void this.#connect(), delay);
  }

  #onLinkClose(link: SmppLink, reason: string): void {
    // A failure while binding is reported by open(); only the loss of a bound link is news.
    if (!this.#links.includes(link) || this.#state !== 'bound') return;
    this.#lastError = reason;
    this.#log('warn', `connection lost: ${reason}`);
    const others = this.#links.filter((other) => other !== link);
    this.#links = [];
    this.#tx = null;
    for (const other of others) other.close(reason);
    if (this.#stopped) return;
    this.#setState('connecting');
    this.#scheduleReconnect();
  }

  /** Submits one submit_sm as given (registered_delivery and all); resolves with the SMSC's id. */
  submit(fields: SubmitFields): Promise<SubmitResult> {
    return new Promise((resolve, reject) => {
      if (!this.#started || this.#stopped) {
        reject(
          new NotSent(this.#stopped ? 'the session is stopped' : 'the session is not started'),
        );
        return;
      }
      const queueTimeoutMs = this.#o.queueTimeoutMs ?? 60_000;
      const item: Queued = {
        pdu: shortMessage({ ...fields, command: 'submit_sm' }),
        resolve,
        reject,
        timer: null,
      };
      item.timer = this.#timers.setTimeout(() => {
        const index = this.#queue.indexOf(item);
        if (index === -1) return;
        this.#queue.splice(index, 1);
        const why = this.#lastError ? `${this.#state}: ${this.#lastError}` : this.#state;
        reject(new NotSent(`not submitted within ${queueTimeoutMs} ms (${why})`));
      }, queueTimeoutMs);
      this.#queue.push(item);
      this.#pump();
    });
  }

  /**
   * Submits a text from one number to another, as many parts as `countSegments` counts,
   * each asking for a receipt. Resolves with every part's outcome; a failed part can be
   * submitted again alone with the same `reference` and its index in `only`.
   */
  async submitText(message: {
    from: string;
    to: string;
    text: string;
    reference?: number;
    only?: readonly number[];
  }): Promise<TextSubmission> {
    const reference = message.reference ?? (this.#reference = (this.#reference + 1) & 0xff);
    const parts = textParts(message.text, this.#o.longMessages ?? 'udh', reference);
    if (parts.length === 0) throw new RangeError('an empty text has nothing to submit');
    const source = toSmppAddress(message.from);
    const destination = toSmppAddress(message.to);
    const indexes = (message.only ?? parts.map((_, index) => index)).filter((i) => parts[i]);
    const settled = await Promise.allSettled(
      indexes.map((index) =>
        this.submit({
          sourceAddrTon: source.ton,
          sourceAddrNpi: source.npi,
          sourceAddr: source.addr,
          destAddrTon: destination.ton,
          destAddrNpi: destination.npi,
          destinationAddr: destination.addr,
          registeredDelivery: 1,
          ...parts[index]!,
        }),
      ),
    );
    return {
      encoding: encodeText(message.text).encoding,
      reference,
      parts: settled.map((outcome, i) =>
        outcome.status === 'fulfilled'
          ? { index: indexes[i]!, ok: true, result: outcome.value }
          : { index: indexes[i]!, ok: false, error: asSmppError(outcome.reason) },
      ),
    };
  }

  /** Writes queued submissions while bound, unpaused, within the window and the rate. */
  #pump(): void {
    if (this.#pumpTimer !== null) return;
    while (this.#queue.length > 0) {
      const tx = this.#tx;
      if (this.#state !== 'bound' || !tx?.bound) return;
      const now = this.#timers.now();
      if (this.#pausedUntil > now) return this.#pumpIn(this.#pausedUntil - now);
      if (tx.outstanding >= this.#window) return; // a response pumps again
      const wait = this.#bucket.take();
      if (wait > 0) return this.#pumpIn(wait);
      const item = this.#queue.shift()!;
      this.#timers.clearTimeout(item.timer);
      this.#send(tx, item);
    }
  }

  #pumpIn(ms: number): void {
    this.#pumpTimer = this.#timers.setTimeout(() => {
      this.#pumpTimer = null;
      this.#pump();
    }, ms);
  }

  #send(tx: SmppLink, item: Queued): void {
    this.#inFlight++;
    tx.request(item.pdu)
      .then((response) => {
        const status = response.commandStatus;
        if (status === CommandStatus.ESME_ROK && response.command === 'submit_sm_resp') {
          const ids = this.#o.ids ?? AS_GIVEN;
          const rawMessageId = response.messageId;
          item.resolve({ messageId: normaliseMessageId(rawMessageId, ids.submit), rawMessageId });
        } else if (THROTTLING.has(status)) {
          const until = this.#timers.now() + (this.#o.throttlePauseMs ?? 1_000);
          this.#pausedUntil = Math.max(this.#pausedUntil, until);
          this.#log(
            'warn',
            `throttled, submitting again in ${this.#pausedUntil - this.#timers.now()} ms`,
          );
          item.reject(new Throttled(status, this.#pausedUntil));
        } else {
          item.reject(new SmppStatusError('submit_sm', status || CommandStatus.ESME_RUNKNOWNERR));
        }
      }, item.reject)
      .finally(() => {
        this.#inFlight--;
        if (this.#inFlight === 0) for (const settled of this.#settled.splice(0)) settled();
        this.#pump();
      });
  }

  async #onRequest(pdu: Pdu): Promise<Pdu | null> {
    if (pdu.command === 'alert_notification') {
      this.emit('alert', pdu);
      return null;
    }
    if (pdu.command !== 'deliver_sm' && pdu.command !== 'data_sm') return null;
    const respond = (commandStatus: number): Pdu => ({
      command: pdu.command === 'deliver_sm' ? 'deliver_sm_resp' : 'data_sm_resp',
      commandStatus,
      sequenceNumber: pdu.sequenceNumber,
      messageId: '',
      tlvs: {},
    });
    const inbound = classifyDelivery(pdu, {
      ids: this.#o.ids ?? AS_GIVEN,
      defaultAlphabet: this.#o.defaultAlphabet ?? 'gsm7',
    });
    if (inbound.kind === 'invalid') {
      // Permanent: the same PDU delivered again would be just as unreadable.
      this.#log('warn', `unreadable ${pdu.command}: ${inbound.error}`);
      return respond(CommandStatus.ESME_RX_P_APPN);
    }
    const handler = this.#o.onDeliver;
    if (!handler) return respond(CommandStatus.ESME_RX_T_APPN);
    try {
      await handler({ ...inbound, pdu });
      return respond(CommandStatus.ESME_ROK);
    } catch (error) {
      // Temporary: the SMSC delivers it again later, so nothing is lost.
      this.#log('warn', `${pdu.command} handler failed: ${String(error)}`);
      return respond(CommandStatus.ESME_RX_T_APPN);
    }
  }

  /**
   * Stops: queued submissions reject with NotSent, those in flight get one response
   * timeout to be answered, then each link unbinds and closes. No rebinding after.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of [this.#reconnectTimer, this.#pumpTimer]) {
      if (timer !== null) this.#timers.clearTimeout(timer);
    }
    this.#reconnectTimer = this.#pumpTimer = null;
    for (const item of this.#queue.splice(0)) {
      this.#timers.clearTimeout(item.timer);
      item.reject(new NotSent('the session stopped'));
    }
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = this.#timers.setTimeout(resolve, this.#responseTimeoutMs);
        this.#settled.push(() => {
          this.#timers.clearTimeout(timer);
          resolve();
        });
      });
    }
    const links = this.#links;
    this.#links = [];
    this.#tx = null;
    await Promise.all(links.map((link) => link.unbind()));
    this.#setState('stopped');
  }
}

function asSmppError(error: unknown): SmppError {
  if (error instanceof SmppError) return error;
  return new NotSent(error instanceof Error ? error.message : String(error));
}
