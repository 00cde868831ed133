// Receipts of the parts of long texts, folded into one per text (domain/part-receipts.ts).
// A receipt whose reference is no part passes as it is: a one-part text's reference is its
// recipient's own.
import type { FailureReason } from '../../domain/message-status.ts';
import { wholeTextStatus } from '../../domain/part-receipts.ts';
import {
  insertCarrierParts,
  partRefsAmong,
  settleCarrierPart,
} from '../../store/repos/carrier-parts.ts';
import type { Store } from '../../store/store.ts';
import type { DeliveryReceipt } from '../carrier.ts';

/**
 * Records the parts of a text the carrier took, before its reference is given to the
 * dispatcher: a part's receipt may come at once. Durable, as a lost part would leave its
 * text `sent` for good.
 */
export async function recordParts(
  store: Store,
  partRefs: readonly string[],
  now: number,
): Promise<void> {
  if (partRefs.length < 2) return;
  await store.write((tx) =>
    insertCarrierParts(
      tx.db,
      partRefs.map((ref, i) => ({
        part_ref: ref,
        carrier_ref: partRefs[0]!,
        part: i + 1,
        parts: partRefs.length,
        status: 'sent',
        failure_reason: null,
        created_at: now,
      })),
    ),
  );
}

/**
 * The receipts to apply for `receipts`: each itself, or, for a part of a long text, its
 * text's whole status under the text's reference once this part's is recorded (durably: the
 * carrier is answered only after the whole receipt is applied, so a crash in between makes
 * it report the part again).
 */
export async function wholeTextReceipts(
  store: Store,
  receipts: readonly DeliveryReceipt[],
): Promise<DeliveryReceipt[]> {
  const parts = await partRefsAmong(
    store.db,
    receipts.map((r) => r.carrierRef),
  );
  if (parts.size === 0) return [...receipts];
  const whole: DeliveryReceipt[] = [];
  for (const r of receipts) whole.push(parts.has(r.carrierRef) ? await ofPart(store, r) : r);
  return whole;
}

async function ofPart(store: Store, receipt: DeliveryReceipt): Promise<DeliveryReceipt> {
  const parts = await store.write((tx) =>
    settleCarrierPart(tx.db, receipt.carrierRef, receipt.status, receipt.failureReason),
  );
  const whole = wholeTextStatus(
    parts.map((p) => ({
      status: p.status,
      failureReason: p.failure_reason as FailureReason | null,
    })),
  );
  return { carrierRef: parts[0]?.carrier_ref ?? receipt.carrierRef, ...whole };
}
