import {
  presentCarrierConnection,
  type CarrierConnectionView,
} from '../presenters/carrier-connection.ts';
import { listCarrierConnections } from '../store/repos/carrier-connections.ts';
import type { AccountScope } from '../store/scope.ts';

/** The account's live carrier connections with their live state, oldest (the default) first. */
export async function listCarrierViews(
  scope: AccountScope,
  now: number,
): Promise<CarrierConnectionView[]> {
  const rows = await listCarrierConnections(scope);
  return rows.map(({ bind, ...row }) => presentCarrierConnection(row, bind, now));
}
