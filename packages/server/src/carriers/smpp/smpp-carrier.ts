// One SMPP carrier connection behind the live carrier (carriers/live/live-carrier.ts): the
// session (session.ts) keeps the bind; this maps the port's submissions onto texts, the
// SMSC's answers onto the port's outcomes, and what it delivers onto receipts and inbound
// texts (docs/behaviour.md#carrier-connections).
import type { ReceiptIds, SmppSecret, SmppSettings } from '../../domain/carrier-settings.ts';
import {
  CarrierRejection,
  CarrierUnavailable,
  type CarrierHandlers,
  type DeliveryReceipt,
  type InboundText,
  type ReceiptOutcome,
  type Submission,
  type SubmitResult,
} from '../carrier.ts';
import type { AdapterConfig, AdapterState, ConnectionAdapter } from '../live/live-carrier.ts';
import { NotSent, SmppStatusError, Throttled, type SmppError } from './errors.ts';
import { CommandStatus } from './pdu.ts';
import type { InboundPart } from './inbound.ts';
import { reassemble, textKeyOf } from './reassemble.ts';
import type { IdFormats } from './receipt.ts';
import { SmppSession, type DeliveryEvent, type TextSubmission } from './session.ts';

/**
 * The id formats of a connection's setting: `dec` compares the SMSC's ids as it writes them
 * (numbers by value), `hex` reads the `submit_sm_resp`'s as hexadecimal and the receipt
 * text's as decimal, the mismatch SMSCs are known for (docs/smpp.md).
 */
export function idFormatsOf(setting: ReceiptIds): IdFormats {
  return setting === 'hex' ? { submit: 'hex', receipt: 'dec' } : { submit: 'dec', receipt: 'dec' };
}

/**
 * A receipt that overtook the recording of its submission is asked about again each time the
 * dispatcher commits references (at most every 250 ms without one), for 2 s. An SMSC that
 * answers at once sends the receipt right behind its `submit_sm_resp`: waiting out a fixed
 * 250 ms made that the p99 of POST → delivered.
 */
const UNKNOWN_RETRY_MS = 250;
const UNKNOWN_FOR_MS = 2_000;

/** Refused parts resent alone (same reference, so the handset still joins them) before giving up. */
const PART_RETRIES = 2;

/** What an SMSC's refusal means for the message: for good, or worth another try later. */
function refusal(error: SmppStatusError): Error {
  switch (error.status) {
    case CommandStatus.ESME_RINVDSTADR:
    case CommandStatus.ESME_RINVDSTTON:
    case CommandStatus.ESME_RINVDSTNPI:
      return new CarrierRejection('invalid_number', error.message);
    case CommandStatus.ESME_RSYSERR:
    case CommandStatus.ESME_RSUBMITFAIL:
    case CommandStatus.ESME_RUNKNOWNERR:
      return error;
    default:
      return new CarrierRejection('carrier_rejected', error.message);
  }
}

/** A handset's part as the database keeps it while it waits for the others. */
function saved(part: InboundPart): string {
  return JSON.stringify({ ...part, payload: part.payload.toString('base64') });
}

function restored(data: string): InboundPart {
  const part = JSON.parse(data) as InboundPart & { payload: string };
  return { ...part, payload: Buffer.from(part.payload, 'base64') };
}

/** The inbound text of a single part, or of every part of a concatenated one. */
function textOf(parts: InboundPart[]): InboundText {
  const text = reassemble(parts).complete[0];
  if (!text) throw new Error('the parts of a text do not make it whole');
  return { mode: 'live', from: text.source, to: text.destination, body: text.text, mediaUrls: [] };
}

/** Creates the adapter of one SMPP connection. */
export function smppAdapter(config: AdapterConfig<SmppSettings, SmppSecret>): ConnectionAdapter {
  const { settings, secret, logger } = config;
  let handlers: CarrierHandlers | null = null;

  // Receipts that arrive together are applied together: one transaction for a burst, as
  // one each made the carrier lane's commits the bottleneck of a busy bind.
  let batch: { receipt: DeliveryReceipt; done: (outcome: ReceiptOutcome | Error) => void }[] = [];
  const flush = () => {
    const taken = batch;
    batch = [];
    handlers!.receipts(taken.map((t) => t.receipt)).then(
      (outcomes) => taken.forEach((t, i) => t.done(outcomes[i]!)),
      (error: Error) => taken.forEach((t) => t.done(error)),
    );
  };
  const apply = (receipt: DeliveryReceipt) =>
    new Promise<ReceiptOutcome>((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ receipt, done: (o) => (o instanceof Error ? reject(o) : resolve(o)) });
    });

  // The dispatcher's commits of carrier references, counted; receipts waiting for one wake.
  let commits = 0;
  const commitWaiters = new Set<() => void>();
  const stopListening = config.onSubmitted(() => {
    commits++;
    for (const wake of [...commitWaiters]) wake();
  });

  const receipt = async (event: Extract<DeliveryEvent, { kind: 'receipt' }>) => {
    const { outcome, messageId } = event.receipt;
    const report: DeliveryReceipt = {
      carrierRef: messageId,
      status: outcome.status,
      failureReason: outcome.failureReason,
    };
    const deadline = Date.now() + UNKNOWN_FOR_MS;
    for (;;) {
      const seen = commits; // a commit while the answer is on its way counts
      if ((await apply(report)) !== 'unknown') return;
      if (Date.now() >= deadline) break;
      if (commits !== seen) continue;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          commitWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, UNKNOWN_RETRY_MS);
        commitWaiters.add(wake);
      });
    }
    // Not acknowledged: the SMSC delivers it again later (ESME_RX_T_APPN).
    throw new Error(`receipt for unknown message id ${messageId}`);
  };

  const session = new SmppSession({
    host: settings.host,
    port: settings.port,
    tls: settings.tls,
    systemId: settings.systemId,
    password: secret.password,
    systemType: settings.systemType,
    bindMode: settings.bindMode,
    window: settings.window,
    ...(settings.throughput > 0 ? { throughput: settings.throughput } : {}),
    longMessages: settings.longMessages,
    ids: idFormatsOf(settings.receiptIds),
    logger,
    onDeliver: async (event) => {
      if (event.kind === 'receipt') return receipt(event);
      const { part } = event;
      if (part.concat === null || part.concat.total === 1) return handlers!.inbound(textOf([part]));
      // Kept in the database until the rest come; acknowledged only once kept.
      await handlers!.inboundPart(
        { key: textKeyOf(part), seq: part.concat.seq, total: part.concat.total, data: saved(part) },
        (parts) => textOf(parts.map(restored)),
      );
    },
  });

  /** Every part accepted, or the reason the text was not taken. */
  const settle = async (submission: Submission, first: TextSubmission): Promise<SubmitResult> => {
    let result = first;
    const ids = new Map<number, string>();
    for (let attempt = 0; ; attempt++) {
      const failed: { index: number; error: SmppError }[] = [];
      for (const part of result.parts) {
        if (part.ok) ids.set(part.index, part.result.messageId);
        else failed.push(part);
      }
      if (failed.length === 0) break;
      const error = failed[0]!.error;
      const nothingTaken = ids.size === 0;
      if (error instanceof Throttled || error instanceof NotSent) {
        if (nothingTaken) throw new CarrierUnavailable(error.message);
      } else if (error instanceof SmppStatusError) {
        const meaning = refusal(error);
        if (meaning instanceof CarrierRejection) throw meaning;
      }
      // Some parts are with the SMSC: resending the whole text would duplicate them.
      if (nothingTaken || attempt >= PART_RETRIES) throw error;
      result = await session.submitText({
        from: submission.from,
        to: submission.to,
        text: submission.body,
        reference: first.reference,
        only: failed.map((f) => f.index),
      });
    }
    const partRefs = [...ids.entries()].sort(([a], [b]) => a - b).map(([, id]) => id);
    return { carrierRef: partRefs[0]!, ...(partRefs.length > 1 ? { partRefs } : {}) };
  };

  return {
    async start(given) {
      handlers = given;
      session.start();
    },
    async submit(submission) {
      if (submission.mediaUrls.length > 0) {
        throw new CarrierRejection('carrier_rejected', 'An SMPP connection carries no media.');
      }
      const status = session.status;
      if (status.state !== 'bound') {
        const why = status.lastError ? `${status.state}: ${status.lastError}` : status.state;
        throw new CarrierUnavailable(`Carrier connection ${config.id} is ${why}.`);
      }
      const first = await session.submitText({
        from: submission.from,
        to: submission.to,
        text: submission.body,
      });
      return settle(submission, first);
    },
    state(): AdapterState {
      const s = session.status;
      return {
        status: s.state === 'bound' ? 'bound' : s.state === 'failed' ? 'failed' : 'connecting',
        lastError: s.lastError,
        inFlight: s.inFlight + s.queued,
      };
    },
    onStateChange(listener) {
      session.on('status', listener);
    },
    async stop() {
      stopListening();
      await session.stop();
    },
  };
}
