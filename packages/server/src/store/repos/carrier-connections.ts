import type { Kysely, Selectable } from 'kysely';
import type { CarrierBindsTable, CarrierConnectionsTable, DB } from '../schema.ts';
import { ownedByAccount, type AccountScope } from '../scope.ts';
import { namesNothing } from '../text-limits.ts';

export type CarrierConnectionRow = Selectable<CarrierConnectionsTable>;
export type CarrierBindRow = Selectable<CarrierBindsTable>;

/**
 * The signal every change to a connection's configuration publishes once committed, with
 * `{id}`: the live carrier reloads it (binds a new one, unbinds a removed or paused one).
 */
export const CARRIER_CHANGED = 'carrier.changed';

/** Inserts a connection. */
export async function insertCarrierConnection(
  db: Kysely<DB>,
  row: CarrierConnectionRow,
): Promise<void> {
  await db.insertInto('carrier_connections').values(row).execute();
}

/** One connection of the account, not removed. */
export function findCarrierConnection(
  scope: AccountScope,
  id: string,
): Promise<CarrierConnectionRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return scope.db
    .selectFrom('carrier_connections')
    .selectAll()
    .where('id', '=', id)
    .where(ownedByAccount(scope.accountId))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** One connection by id alone, not removed (the CLI names a connection without its account). */
export function findCarrierConnectionById(
  db: Kysely<DB>,
  id: string,
): Promise<CarrierConnectionRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return db
    .selectFrom('carrier_connections')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The account's connections, oldest first (the first is its default), with their live state. */
export function listCarrierConnections(
  scope: AccountScope,
): Promise<(CarrierConnectionRow & { bind: CarrierBindRow | null })[]> {
  return scope.db
    .selectFrom('carrier_connections')
    .leftJoin('carrier_binds', 'carrier_binds.connection_id', 'carrier_connections.id')
    .selectAll('carrier_connections')
    .select([
      'carrier_binds.holder',
      'carrier_binds.lease_until',
      'carrier_binds.status',
      'carrier_binds.last_error',
      'carrier_binds.stats_json',
      'carrier_binds.updated_at as bind_updated_at',
    ])
    .where(ownedByAccount(scope.accountId, 'carrier_connections'))
    .where('carrier_connections.deleted_at', 'is', null)
    .orderBy('carrier_connections.id')
    .execute()
    .then((rows) =>
      rows.map(
        ({ holder, lease_until, status, last_error, stats_json, bind_updated_at, ...row }) => ({
          ...row,
          bind:
            status === null
              ? null
              : {
                  connection_id: row.id,
                  holder,
                  lease_until: lease_until ?? 0,
                  status,
                  last_error,
                  stats_json: stats_json ?? '{}',
                  updated_at: bind_updated_at ?? 0,
                },
        }),
      ),
    );
}

/**
 * Every connection of every account that is not removed: the messaging ones are what the live
 * carrier may bind; the SIP trunks are what the trunk checks ask.
 */
export function listActiveCarrierConnections(
  db: Kysely<DB>,
  kind: 'messaging' | 'sip' = 'messaging',
): Promise<CarrierConnectionRow[]> {
  return db
    .selectFrom('carrier_connections')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where('type', kind === 'sip' ? '=' : '!=', 'sip')
    .orderBy('id')
    .execute();
}

/** Changes a connection's `paused` or marks it removed. */
export async function updateCarrierConnection(
  db: Kysely<DB>,
  id: string,
  values: Partial<Pick<CarrierConnectionRow, 'paused' | 'deleted_at' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('carrier_connections').set(values).where('id', '=', id).execute();
}

/**
 * Takes or renews the lease on a connection's bind for `holder` until `until`: granted when
 * nobody holds it, the lease has run out, or `holder` holds it already. With several
 * instances on PostgreSQL exactly one holds each bind; another takes over once its lease
 * ends. Returns whether `holder` holds it now.
 */
export async function leaseCarrierBind(
  db: Kysely<DB>,
  connectionId: string,
  holder: string,
  now: number,
  until: number,
): Promise<boolean> {
  await db
    .insertInto('carrier_binds')
    .values({
      connection_id: connectionId,
      holder: null,
      lease_until: 0,
      status: 'connecting',
      last_error: null,
      stats_json: '{}',
      updated_at: now,
    })
    .onConflict((oc) => oc.column('connection_id').doNothing())
    .execute();
  const result = await db
    .updateTable('carrier_binds')
    .set({ holder, lease_until: until })
    .where('connection_id', '=', connectionId)
    .where((eb) =>
      eb.or([eb('holder', 'is', null), eb('holder', '=', holder), eb('lease_until', '<=', now)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a lease up (an instance that stops, a connection removed or paused). */
export async function releaseCarrierBind(
  db: Kysely<DB>,
  connectionId: string,
  holder: string,
  status: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('carrier_binds')
    .set({ holder: null, lease_until: 0, status, updated_at: now })
    .where('connection_id', '=', connectionId)
    .where('holder', '=', holder)
    .execute();
}

/** What the holder of a bind reports of it; nothing when `holder` no longer holds it. */
export async function reportCarrierBind(
  db: Kysely<DB>,
  connectionId: string,
  holder: string,
  state: Pick<CarrierBindRow, 'status' | 'last_error' | 'stats_json' | 'updated_at'>,
): Promise<void> {
  await db
    .updateTable('carrier_binds')
    .set(state)
    .where('connection_id', '=', connectionId)
    .where('holder', '=', holder)
    .execute();
}
