import type { FailureReason } from '../domain/message-status.ts';
import type { Mode } from '../domain/modes.ts';

/**
 * The carrier port. Every outbound text leaves through `submit` and every
 * receipt and inbound text comes back through the handlers given to `start`.
 * It is shaped after SMPP, so a real SMSC connection fits without touching the
 * send flow: `submit` resolves when the carrier has taken the message
 * (submit_sm_resp) with the carrier's reference, receipts arrive later and
 * refer to that reference (deliver_sm with a receipt), inbound texts arrive on
 * the same channel, and `window` bounds submissions in flight (backpressure).
 */
export interface Carrier {
  /** A name for logs and configuration (`sandbox`, `smpp`, `none`). */
  readonly name: string;
  /** Most submissions awaiting the carrier's answer at once (the SMPP window). */
  readonly window: number;
  /** Connects and starts reporting receipts and inbound texts to the handlers. */
  start(handlers: CarrierHandlers): Promise<void>;
  /** Hands one message to one recipient to the carrier. */
  submit(submission: Submission): Promise<SubmitResult>;
  /** Stops reporting and disconnects; pending work stays with the carrier. */
  stop(): Promise<void>;
}

/** One message to one recipient, as the carrier receives it. */
export interface Submission {
  messageId: string;
  accountId: string;
  mode: Mode;
  from: string;
  to: string;
  body: string;
  mediaUrls: string[];
  segments: number;
}

/** The carrier's answer to a submission it accepted. */
export interface SubmitResult {
  /** The carrier's id of the submission; receipts refer to it. */
  carrierRef: string;
  /**
   * When the text left as several carrier messages (a long SMS), each part's id, in order;
   * the first is `carrierRef`. Each part has its own receipt.
   */
  partRefs?: string[];
}

/**
 * A submission the carrier refused for good (bad number, policy). Any other
 * error from `submit` is transient: the submission is retried later.
 */
export class CarrierRejection extends Error {
  readonly reason: FailureReason;
  constructor(reason: FailureReason, message: string) {
    super(message);
    this.name = 'CarrierRejection';
    this.reason = reason;
  }
}

/**
 * Nothing was handed to the carrier: its connection is not bound here (connecting, failed,
 * paused, held by another instance) or asked for a pause (SMPP throttling). The submission
 * waits without spending an attempt, until it binds or the queue's expiry
 * (docs/behaviour.md#carrier-connections) fails it as `unreachable`.
 */
export class CarrierUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierUnavailable';
  }
}

/** A delivery report for an earlier submission. */
export interface DeliveryReceipt {
  carrierRef: string;
  status: 'sent' | 'delivered' | 'failed';
  failureReason: FailureReason | null;
}

/** A text that arrived from the network for one of the account numbers. */
export interface InboundText {
  mode: Mode;
  from: string;
  to: string;
  body: string;
  mediaUrls: string[];
  /** The provider's id of the text (Twilio's MessageSid, Telnyx's message id), when it has one. */
  providerId?: string | undefined;
}

/**
 * What the core does with what the carrier reports. Both are idempotent, so a
 * carrier may report the same thing twice (at-least-once, as SMPP does after a
 * lost acknowledgement); a handler resolves once the report is durable, and a
 * carrier acknowledges to the network only then.
 */
export interface CarrierHandlers {
  /**
   * Applies receipts in the order given (a burst from the network is one batch,
   * one transaction) and answers each one's outcome in that order: `unknown` when
   * its reference is not (yet) recorded, so the carrier reports it again later.
   */
  receipts(receipts: readonly DeliveryReceipt[]): Promise<ReceiptOutcome[]>;
  inbound(text: InboundText): Promise<void>;
  /**
   * Keeps one part of a text that arrives in several, durably; the part that completes it
   * has `join` make the text of all its parts (in order), which is received in the
   * transaction that forgets them. Resolves once durable, whole or not.
   */
  inboundPart(part: InboundTextPart, join: (parts: string[]) => InboundText): Promise<void>;
}

/** One part of a text from the network that arrives in several (a concatenated SMS). */
export interface InboundTextPart {
  /** Names its text among every carrier's: parts with the same key are joined. */
  key: string;
  /** Its place, from 1. */
  seq: number;
  total: number;
  /** The part as its carrier needs it to join the text, opaque to the core. */
  data: string;
}

/**
 * How long the first part of a text waits for the rest: a day, as handsets retry a part
 * for hours and a part that never comes should not keep the others for good.
 */
export const INBOUND_PART_MAX_AGE_MS = 24 * 3_600_000;

/** What became of a receipt: applied, ignored (a duplicate or late one), or for an unknown reference. */
export type ReceiptOutcome = 'applied' | 'ignored' | 'unknown';
