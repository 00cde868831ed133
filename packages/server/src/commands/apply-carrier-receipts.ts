import type { DeliveryReceipt, ReceiptOutcome } from '../carriers/carrier.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { applyDeliveryReceipts } from './apply-delivery-receipts.ts';
import type { CommandDeps } from './context.ts';

/**
 * Receipts from a provider's status callbacks (Twilio, Telnyx): they arrive at the HTTP
 * transport, not at the carrier side, and are applied as the carrier side applies its own.
 */
export function applyCarrierReceipts(
  tx: WriteTx,
  receipts: readonly DeliveryReceipt[],
  deps: CommandDeps,
): Promise<ReceiptOutcome[]> {
  return applyDeliveryReceipts(tx, receipts, deps);
}
