import {
  CarrierRejection,
  CarrierUnavailable,
  type Carrier,
  type Submission,
} from '../carriers/carrier.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { Pump } from '../lib/pump.ts';
import type { Mode } from '../domain/modes.ts';
import { transitionRecipient } from '../commands/transition-recipient.ts';
import { backgroundRound } from '../store/engine/write-queue.ts';
import { findMessagesByIds, findRecipient, type MessageRow } from '../store/repos/messages.ts';
import { recordCarrierRefs, type CarrierRef } from '../store/repos/recipient-moves.ts';
import {
  claimSubmissions,
  deferSubmission,
  nextSubmissionDue,
  rescheduleSubmission,
  type ClaimedSubmission,
} from '../store/repos/submissions.ts';
import { recipientsOptedOut } from '../store/repos/opt-outs.ts';
import { decideRecipient } from '../domain/recipient-policy.ts';
import {
  DEFAULT_QUEUE_EXPIRY_MS,
  nextSubmissionAttemptAt,
  nextWaitingAttemptAt,
} from '../domain/submission-retry.ts';
import type { Store } from '../store/store.ts';

/** A claim not settled within this lease is taken again (its worker died mid-submit). */
const LEASE_MS = 60_000;

type Outcome =
  | { kind: 'accepted'; carrierRef: string }
  | { kind: 'rejected'; error: CarrierRejection }
  | { kind: 'transient'; error: unknown }
  | { kind: 'waiting'; error: CarrierUnavailable; acceptedAt: number }
  | { kind: 'opted_out' }
  | { kind: 'gone' };

const recipientKey = (messageId: string, phone: string) => `${messageId} ${phone}`;

/** Runs `fn` over `items` with at most `limit` in flight: the carrier's window. */
async function mapWindowed<T, R>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * Moves queued submissions (recipients without a carrier reference) to the
 * carrier of their message's mode. Each round claims due ones, submits them within the carrier's window, and settles all outcomes in
 * one transaction: accepted ones get their carrier reference, refused ones
 * fail with the carrier's reason, and transient errors are retried later.
 */
export class MessageDispatcher {
  readonly #store: Store;
  readonly #carriers: Record<Mode, Carrier>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #queueExpiryMs: number;
  readonly #pump: Pump;
  readonly #wake = () => this.#pump.wake();

  constructor(options: {
    store: Store;
    carriers: Record<Mode, Carrier>;
    clock: Clock;
    logger: Logger;
    /** Uniform in [0, 1): the retry schedule's jitter (tests pin it). */
    random?: () => number;
    /** How long a send waits for an unbound connection (domain/submission-retry.ts). */
    queueExpiryMs?: number;
  }) {
    this.#store = options.store;
    this.#carriers = options.carriers;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#random = options.random ?? Math.random;
    this.#queueExpiryMs = options.queueExpiryMs ?? DEFAULT_QUEUE_EXPIRY_MS;
    this.#pump = new Pump({
      round: () => this.#round(),
      clock: options.clock,
      pollMs: 1000,
      onError: (error) => this.#logger.error({ err: error }, 'dispatch round failed'),
    });
  }

  /** Starts dispatching; wakes whenever a send commits. */
  start(): void {
    this.#store.signals.on('outbound.queued', this.#wake);
    this.#pump.start();
  }

  /** Stops after the round in flight. */
  async stop(): Promise<void> {
    this.#store.signals.off('outbound.queued', this.#wake);
    await this.#pump.stop();
  }

  async #submit(row: ClaimedSubmission, message: MessageRow | undefined): Promise<Outcome> {
    if (!message) return { kind: 'gone' };
    const submission: Submission = {
      messageId: message.id,
      accountId: message.account_id,
      mode: message.mode,
      from: message.from_phone,
      to: row.phone,
      body: message.body,
      mediaUrls: (JSON.parse(message.media_json) as { url: string }[]).map((m) => m.url),
      segments: message.segments,
    };
    try {
      const { carrierRef } = await this.#carriers[message.mode].submit(submission);
      return { kind: 'accepted', carrierRef };
    } catch (error) {
      if (error instanceof CarrierRejection) return { kind: 'rejected', error };
      if (error instanceof CarrierUnavailable) {
        return { kind: 'waiting', error, acceptedAt: message.created_at };
      }
      return { kind: 'transient', error };
    }
  }

  async #round() {
    const now = this.#clock.now();
    // A lease lost in a crash is only taken again: no need to wait for the disk.
    // Submissions claimed per round.
    const batch = backgroundRound(this.#store.requestLoad());
    // The round's messages are read in the claim's transaction, one read for the whole
    // round (a query per row was most of the dispatcher's cost), by index (findMessagesByIds).
    // Recipients on the opt-out list are read with them; what follows for each is
    // domain/recipient-policy.ts's (a send queued before a STOP fails as opted_out).
    const { claimed, rows, optedOut } = await this.#store.write(
      async (tx) => {
        const claimed = await claimSubmissions(tx.db, now, batch, LEASE_MS);
        const ids = [...new Set(claimed.map((r) => r.message_id))];
        const [rows, optedOut] = await Promise.all([
          findMessagesByIds(tx.db, ids),
          recipientsOptedOut(tx.db, claimed),
        ]);
        return { claimed, rows, optedOut };
      },
      { durable: false },
    );
    if (claimed.length > 0) {
      const messages = new Map(rows.map((m) => [m.id, m]));
      const stopped = new Set(
        optedOut
          .filter((r) => {
            const group = Number(messages.get(r.message_id)?.is_group ?? 0) === 1;
            const facts = { optedOut: true, autoReply: r.auto_reply, group };
            return decideRecipient('dispatch', facts) === 'fail';
          })
          .map((r) => recipientKey(r.message_id, r.phone)),
      );
      const byMode = (mode: Mode) =>
        claimed.filter((r) => (messages.get(r.message_id)?.mode ?? 'test') === mode);
      const settled: [ClaimedSubmission, Outcome][] = [];
      for (const mode of ['test', 'live'] as const) {
        const rows = byMode(mode);
        const outcomes = await mapWindowed(rows, this.#carriers[mode].window, (r) =>
          stopped.has(recipientKey(r.message_id, r.phone))
            ? Promise.resolve<Outcome>({ kind: 'opted_out' })
            : this.#submit(r, messages.get(r.message_id)),
        );
        rows.forEach((r, i) => settled.push([r, outcomes[i]!]));
      }
      // In message order: a failure's transition locks its message, and two instances'
      // settlements taking the same messages in opposite orders could deadlock.
      settled.sort(([a], [b]) =>
        a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0,
      );
      // The accepted ones, most of a round, are recorded in one go (one statement on PostgreSQL).
      const accepted: CarrierRef[] = settled.flatMap(([row, outcome]) =>
        outcome.kind === 'accepted'
          ? [{ messageId: row.message_id, phone: row.phone, carrierRef: outcome.carrierRef }]
          : [],
      );
      await this.#store.write(async (tx) => {
        const deps = { clock: this.#clock };
        await recordCarrierRefs(tx.db, accepted, now);
        for (const [row, outcome] of settled) {
          const retryAt =
            outcome.kind === 'transient'
              ? nextSubmissionAttemptAt(row.attempts, now, this.#random)
              : null;
          if (retryAt !== null) {
            const error = String(outcome.kind === 'transient' ? outcome.error : '');
            await rescheduleSubmission(tx.db, row.message_id, row.phone, retryAt, error);
            continue;
          }
          if (outcome.kind === 'waiting') {
            const at = nextWaitingAttemptAt(
              outcome.acceptedAt,
              now,
              this.#queueExpiryMs,
              this.#random,
            );
            if (at !== null) {
              await deferSubmission(tx.db, row.message_id, row.phone, at, outcome.error.message);
              continue;
            }
          }
          if (outcome.kind === 'accepted') continue;
          if (outcome.kind === 'gone') {
            // A recipient whose message is not there has nothing to submit, ever.
            await rescheduleSubmission(tx.db, row.message_id, row.phone, null, 'message not found');
            continue;
          }
          const recipient = await findRecipient(tx.db, row.message_id, row.phone);
          if (!recipient) continue;
          if (outcome.kind === 'rejected') {
            await transitionRecipient(tx, recipient, 'failed', outcome.error.reason, deps);
          } else if (outcome.kind === 'opted_out') {
            await transitionRecipient(tx, recipient, 'failed', 'opted_out', deps);
          } else if (outcome.kind === 'transient' || outcome.kind === 'waiting') {
            await transitionRecipient(tx, recipient, 'failed', 'unreachable', deps);
          }
        }
        tx.publish('outbound.submitted', null);
      });
      for (const [row, outcome] of settled) {
        if (outcome.kind === 'transient') {
          this.#logger.warn(
            { messageId: row.message_id, err: outcome.error },
            'carrier submit failed; will retry',
          );
        }
      }
    }
    if (claimed.length === batch) return { again: 'now' } as const;
    const due = await nextSubmissionDue(this.#store.db);
    return due === null ? ({ again: 'idle' } as const) : ({ again: 'at', at: due } as const);
  }
}
