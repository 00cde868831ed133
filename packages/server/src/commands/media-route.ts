import { HTTP_CARRIER_TYPES } from '../domain/carrier-settings.ts';
import { validationError } from '../domain/errors.ts';
import { findCarrierConnectionById } from '../store/repos/carrier-connections.ts';
import { findLiveRoute } from '../store/repos/phone-numbers.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/**
 * A live MMS must leave through a connection that carries media (Twilio, Telnyx): from a
 * number routed over SMPP it is refused with 422, never sent as text alone
 * (docs/behaviour.md#http-carriers). A number with no connection fails later as any live send.
 */
export async function requireMediaRoute(tx: WriteTx, from: string): Promise<void> {
  const route = await findLiveRoute(tx.db, from);
  if (!route) return;
  const connection = await findCarrierConnectionById(tx.db, route.connectionId);
  if (connection && !HTTP_CARRIER_TYPES.includes(connection.type)) {
    throw validationError(
      'mediaUrls',
      `${from} sends through an ${connection.type.toUpperCase()} connection, which carries no media; send text only, or route the number through a Twilio or Telnyx connection.`,
    );
  }
}
