import { ApiError } from '../domain/errors.ts';
import {
  presentCarrierConnection,
  type CarrierConnectionView,
} from '../presenters/carrier-connection.ts';
import {
  CARRIER_CHANGED,
  findCarrierConnection,
  updateCarrierConnection,
} from '../store/repos/carrier-connections.ts';
import { accountScoped } from '../store/scope.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/**
 * Pauses a connection (the live carrier unbinds it; its sends wait, queued) or resumes it.
 */
export async function pauseCarrier(
  tx: WriteTx,
  input: { accountId: string; id: string; paused: boolean },
  deps: CommandDeps,
): Promise<CarrierConnectionView> {
  const row = await findCarrierConnection(accountScoped(tx.db, input.accountId), input.id);
  if (!row) throw new ApiError('not_found', `No such carrier connection: '${input.id}'.`);
  const now = deps.clock.now();
  const paused = input.paused ? 1 : 0;
  await updateCarrierConnection(tx.db, row.id, { paused, updated_at: now });
  tx.publish(CARRIER_CHANGED, { id: row.id });
  return presentCarrierConnection({ ...row, paused, updated_at: now }, null, now);
}
