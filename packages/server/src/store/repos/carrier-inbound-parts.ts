import type { Kysely, Selectable } from 'kysely';
import type { CarrierInboundPartsTable, DB } from '../schema.ts';

export type CarrierInboundPartRow = Selectable<CarrierInboundPartsTable>;

/**
 * Keeps a part (a second copy of one changes nothing) and forgets parts received before
 * `staleBefore`, whose texts will never be whole. When this part completes its text, its
 * parts are deleted and returned in order; else null.
 */
export async function keepInboundPart(
  db: Kysely<DB>,
  row: CarrierInboundPartRow,
  staleBefore: number,
): Promise<CarrierInboundPartRow[] | null> {
  await db.deleteFrom('carrier_inbound_parts').where('received_at', '<', staleBefore).execute();
  await db
    .insertInto('carrier_inbound_parts')
    .values(row)
    .onConflict((oc) => oc.columns(['text_key', 'seq']).doNothing())
    .execute();
  const parts = await db
    .selectFrom('carrier_inbound_parts')
    .selectAll()
    .where('text_key', '=', row.text_key)
    .orderBy('seq')
    .execute();
  if (parts.length < row.total) return null;
  await db.deleteFrom('carrier_inbound_parts').where('text_key', '=', row.text_key).execute();
  return parts;
}
