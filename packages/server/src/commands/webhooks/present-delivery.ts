import { presentDeliveries } from '../../queries/delivery-log.ts';
import type { WebhookDeliveryView } from '../../presenters/webhook-delivery.ts';
import { findDelivery } from '../../store/repos/webhook-deliveries.ts';
import type { WriteTx } from '../../store/engine/write-queue.ts';

/** A delivery a command made or re-armed, as the delivery log shows it, read in its transaction. */
export async function presentDelivery(tx: WriteTx, id: string): Promise<WebhookDeliveryView> {
  const row = await findDelivery(tx.db, id);
  return (await presentDeliveries(tx.db, row ? [row] : []))[0]!;
}
