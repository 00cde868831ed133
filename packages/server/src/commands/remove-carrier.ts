import { ApiError } from '../domain/errors.ts';
import {
  CARRIER_CHANGED,
  findCarrierConnectionById,
  updateCarrierConnection,
} from '../store/repos/carrier-connections.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/**
 * Removes a connection: the live carrier unbinds it once committed, and numbers routed to
 * it fall back to the account's first connection. `accountId`, when given (the dashboard),
 * confines it to that account; the CLI names the connection alone.
 */
export async function removeCarrier(
  tx: WriteTx,
  input: { id: string; accountId?: string },
  deps: CommandDeps,
): Promise<{ id: string; object: 'carrier_connection'; deleted: true }> {
  const row = await findCarrierConnectionById(tx.db, input.id);
  if (!row || (input.accountId !== undefined && row.account_id !== input.accountId)) {
    throw new ApiError('not_found', `No such carrier connection: '${input.id}'.`);
  }
  const now = deps.clock.now();
  await updateCarrierConnection(tx.db, row.id, { deleted_at: now, updated_at: now });
  tx.publish(CARRIER_CHANGED, { id: row.id });
  return { id: row.id, object: 'carrier_connection', deleted: true };
}
