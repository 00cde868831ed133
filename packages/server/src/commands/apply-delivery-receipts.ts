import type { DeliveryReceipt, ReceiptOutcome } from '../carriers/carrier.ts';
import { findRecipientsLockingMessages } from '../store/repos/messages.ts';
import type { WriteTx } from '../store/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { transitionRecipient } from './transition-recipient.ts';

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
  for (let i = 0; i < receipts.length; i++) {
    if (as[i] !== i) continue;
    const receipt = receipts[i]!;
    const target = found.get(receipt.carrierRef);
    if (!target) {
      outcomes[i] = 'unknown';
      continue;
    }
    const after = await transitionRecipient(
      tx,
      target.recipient,
      receipt.status,
      receipt.failureReason,
      deps,
      target.message,
    );
    if (!after) {
      outcomes[i] = 'ignored';
      continue;
    }
    target.recipient = after.recipient;
    // Every recipient of the message in this batch shares the message object.
    Object.assign(target.message, after.message);
    outcomes[i] = 'applied';
  }
  // A receipt applied as a later one fares as that one did.
  return Array.from(outcomes, (outcome, i) => outcome ?? outcomes[as[i]!]!);
}
