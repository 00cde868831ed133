import type { DeliveryReceipt, ReceiptOutcome } from '../carriers/carrier.ts';
import { findRecipientsLockingMessages } from '../store/repos/messages.ts';
import type { WriteTx } from '../store/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { transitionRecipient } from './transition-recipient.ts';

/**
 * Applies a carrier's delivery receipts, in the order given, and answers each
 * one's outcome in that order. Duplicates and late ones (a `sent` after
 * `delivered`) are ignored, so the carrier may report at-least-once. A receipt
 * can overtake the recording of its own submission; `unknown` tells the carrier
 * to report it again shortly.
 *
 * The recipients and their messages are read in one statement for the whole
 * batch; a later receipt of the same recipient or message (a `sent` and its
 * `delivered` reported together) sees the rows as the earlier one left them.
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
  const outcomes: ReceiptOutcome[] = [];
  for (const receipt of receipts) {
    const target = found.get(receipt.carrierRef);
    if (!target) {
      outcomes.push('unknown');
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
      outcomes.push('ignored');
      continue;
    }
    target.recipient = after.recipient;
    // Every recipient of the message in this batch shares the message object.
    Object.assign(target.message, after.message);
    outcomes.push('applied');
  }
  return outcomes;
}
