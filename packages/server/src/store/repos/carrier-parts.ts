import type { Kysely, Selectable } from 'kysely';
import type { CarrierPartsTable, DB } from '../schema.ts';

export type CarrierPartRow = Selectable<CarrierPartsTable>;

/** Records the parts of a text the carrier took (each `sent` until its receipt comes). */
export async function insertCarrierParts(db: Kysely<DB>, rows: CarrierPartRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('carrier_parts')
    .values(rows)
    .onConflict((oc) => oc.column('part_ref').doNothing())
    .execute();
}

/** Which of `refs` name parts of long texts (one statement for a burst of receipts). */
export async function partRefsAmong(db: Kysely<DB>, refs: readonly string[]): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const rows = await db
    .selectFrom('carrier_parts')
    .select('part_ref')
    .where('part_ref', 'in', [...new Set(refs)])
    .execute();
  return new Set(rows.map((r) => r.part_ref));
}

/** The part a reference names, if it is a part of a long text. */
export function findCarrierPart(
  db: Kysely<DB>,
  partRef: string,
): Promise<CarrierPartRow | undefined> {
  return db
    .selectFrom('carrier_parts')
    .selectAll()
    .where('part_ref', '=', partRef)
    .executeTakeFirst();
}

/** Records a part's receipt; then every part of its text, as they stand. */
export async function settleCarrierPart(
  db: Kysely<DB>,
  partRef: string,
  status: CarrierPartRow['status'],
  failureReason: string | null,
): Promise<CarrierPartRow[]> {
  const part = await findCarrierPart(db, partRef);
  if (!part) return [];
  // A part's status moves forward only: a late `sent` never undoes its `delivered`.
  if (part.status === 'sent' || status === 'failed') {
    await db
      .updateTable('carrier_parts')
      .set({ status, failure_reason: failureReason })
      .where('part_ref', '=', partRef)
      .where('status', '<>', 'failed')
      .execute();
  }
  return db
    .selectFrom('carrier_parts')
    .selectAll()
    .where('carrier_ref', '=', part.carrier_ref)
    .orderBy('part')
    .execute();
}
