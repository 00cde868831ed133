import type { DeliveryReceipt, ReceiptOutcome } from '../carriers/carrier.ts';
import {
  findRecipientsLockingMessages,
  type MessageRow,
  type RecipientRow,
} from '../store/repos/messages.ts';
import { moveRecipients } from '../store/repos/recipient-moves.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { recordEvents } from './record-event.ts';
import {
  moveOf,
  planTransition,
  reportsOf,
  transitionRecipient,
  type TransitionPlan,
  type TransitionReports,
} from './transition-recipient.ts';

/**
 * For each receipt, the index of the receipt it is applied as: a `sent` followed
 * in the same batch by its recipient's `delivered` or `failed` is applied as the
 * first such later one, since the recipient ends where the later one leaves it either way
 * (`queued → delivered` is a transition of its own, for carriers that report no
 * `sent`). Every other receipt is applied as itself.
 */
function appliedAs(receipts: readonly DeliveryReceipt[]): number[] {
  const as = receipts.map((_, i) => i);
  // From the end: the nearest later `delivered` or `failed` of each reference.
  const later = new Map<string, number>();
  for (let i = receipts.length - 1; i >= 0; i--) {
    const { carrierRef, status } = receipts[i]!;
    if (status !== 'sent') later.set(carrierRef, i);
    else if (later.has(carrierRef)) as[i] = later.get(carrierRef)!;
  }
  return as;
}

/** A receipt of a one-to-one message, its transition planned and not yet written. */
interface Planned {
  index: number;
  receipt: DeliveryReceipt;
  target: Target;
  plan: TransitionPlan;
}

type Target = { recipient: RecipientRow; message: MessageRow };

/**
 * Applies a carrier's delivery receipts, in the order given, and answers each
 * one's outcome in that order. Duplicates and late ones (a `sent` after
 * `delivered`) are ignored, so the carrier may report at-least-once. A receipt
 * can overtake the recording of its own submission; `unknown` tells the carrier
 * to report it again shortly.
 *
 * The recipients and their messages are read in one statement for the whole
 * batch; a later receipt of the same recipient or message sees the rows as the
 * earlier one left them. A `sent` whose `delivered` (or `failed`) came in the same
 * batch is not written on its own (see appliedAs): with a zero sandbox delay, or a
 * carrier that reports both at once, that was two of a message's five writes.
 *
 * The receipts of one-to-one messages are planned first and written together: on
 * PostgreSQL their moves are one statement and their events another (moveRecipients,
 * recordEvents), where each was two round trips of the carrier lane, as many as a
 * send's whole request lane took (docs/benchmarks.md). A group's receipt reads its
 * message's other recipients, and is applied on its own, as it comes.
 */
export async function applyDeliveryReceipts(
  tx: WriteTx,
  receipts: readonly DeliveryReceipt[],
  deps: CommandDeps,
): Promise<ReceiptOutcome[]> {
  const found = await findRecipientsLockingMessages(
    tx.db,
    receipts.map((r) => r.carrierRef),
  );
  const as = appliedAs(receipts);
  const outcomes: ReceiptOutcome[] = new Array(receipts.length);

  /** Applies one receipt on its own (transitionRecipient), as the rows are now. */
  const applyAlone = async (receipt: DeliveryReceipt, target: Target): Promise<ReceiptOutcome> => {
    const after = await transitionRecipient(
      tx,
      target.recipient,
      receipt.status,
      receipt.failureReason,
      deps,
      target.message,
    );
    if (!after) return 'ignored';
    target.recipient = after.recipient;
    // Every recipient of the message in this batch shares the message object.
    Object.assign(target.message, after.message);
    return 'applied';
  };

  const planned: Planned[] = [];
  const plannedMessages = new Set<string>();
  const writePlanned = async () => {
    const batch = planned.splice(0);
    plannedMessages.clear();
    if (batch.length === 0) return;
    const applied = await moveRecipients(
      tx.db,
      batch.map((p) => moveOf(p.plan)),
    );
    const reports: TransitionReports[] = [];
    for (const { index, receipt, target, plan } of batch) {
      if (applied.has(`${plan.message.id} ${plan.recipient.phone}`)) {
        target.recipient = plan.recipient;
        Object.assign(target.message, plan.message);
        outcomes[index] = 'applied';
        reports.push(reportsOf(plan));
      } else {
        // Moved by another instance between the read and the lock: judged again as it is now.
        outcomes[index] = await applyAlone(receipt, target);
      }
    }
    await recordEvents(
      tx,
      reports.flatMap((r) => (r.event ? [r.event] : [])),
    );
    for (const r of reports) tx.publish('message.updated', r.updated);
  };

  for (let i = 0; i < receipts.length; i++) {
    if (as[i] !== i) continue;
    const receipt = receipts[i]!;
    const target = found.get(receipt.carrierRef);
    if (!target) {
      outcomes[i] = 'unknown';
      continue;
    }
    if (target.message.is_group) {
      outcomes[i] = await applyAlone(receipt, target);
      continue;
    }
    // A second move of the same message is planned from the rows the first one leaves.
    if (plannedMessages.has(target.message.id)) await writePlanned();
    const plan = planTransition(
      target.message,
      [target.recipient],
      target.recipient,
      receipt.status,
      receipt.failureReason,
      deps.clock.now(),
    );
    if (!plan) {
      outcomes[i] = 'ignored';
      continue;
    }
    planned.push({ index: i, receipt, target, plan });
    plannedMessages.add(target.message.id);
  }
  await writePlanned();
  // A receipt applied as a later one fares as that one did.
  return Array.from(outcomes, (outcome, i) => outcome ?? outcomes[as[i]!]!);
}
