import type { DeliveryReceipt } from '../carriers/carrier.ts';
import { findRecipientLockingMessage } from '../store/repos/messages.ts';
import type { WriteTx } from '../store/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { transitionRecipient } from './transition-recipient.ts';

/** What became of a receipt: applied, ignored (duplicate or late), or for a reference not yet known. */
export type ReceiptOutcome = 'applied' | 'ignored' | 'unknown';

/**
 * Applies a carrier's delivery receipt. Duplicates and late ones (a `sent`
 * after `delivered`) are ignored, so the carrier may report at-least-once. A
 * receipt can overtake the recording of its own submission; `unknown` tells
 * the carrier to report it again shortly.
 */
export async function applyDeliveryReceipt(
  tx: WriteTx,
  receipt: DeliveryReceipt,
  deps: CommandDeps,
): Promise<ReceiptOutcome> {
  const found = await findRecipientLockingMessage(tx.db, receipt.carrierRef);
  if (!found) return 'unknown';
  const applied = await transitionRecipient(
    tx,
    found.recipient,
    receipt.status,
    receipt.failureReason,
    deps,
    found.message,
  );
  return applied ? 'applied' : 'ignored';
}
