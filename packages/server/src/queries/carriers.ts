import {
  presentCarrierConnection,
  type CarrierConnectionView,
} from '../presenters/carrier-connection.ts';
import type { Kysely } from 'kysely';
import {
  findCarrierConnectionById,
  listCarrierConnections,
  type CarrierConnectionRow,
} from '../store/repos/carrier-connections.ts';
import type { DB } from '../store/schema.ts';
import type { AccountScope } from '../store/scope.ts';

/** The account's live carrier connections with their live state, oldest (the default) first. */
export async function listCarrierViews(
  scope: AccountScope,
  now: number,
): Promise<CarrierConnectionView[]> {
  const rows = await listCarrierConnections(scope);
  return rows.map(({ bind, ...row }) => presentCarrierConnection(row, bind, now));
}

/** The connection a provider's callback names, of any account (its signature proves the sender). */
export function findCallbackConnection(
  db: Kysely<DB>,
  id: string,
): Promise<CarrierConnectionRow | undefined> {
  return findCarrierConnectionById(db, id);
}
