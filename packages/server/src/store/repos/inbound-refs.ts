import type { Kysely } from 'kysely';
import type { DB } from '../schema.ts';
import { namesNothing } from '../text-limits.ts';

/**
 * Records that `ref` (a provider's id of an inbound text) is `messageId`; false when it was
 * already recorded, so the text is a provider's repeat and must change nothing.
 */
export async function claimInboundRef(
  db: Kysely<DB>,
  ref: string,
  messageId: string,
  now: number,
): Promise<boolean> {
  const rows = await db
    .insertInto('inbound_refs')
    .values({ ref, message_id: messageId, created_at: now })
    .onConflict((oc) => oc.column('ref').doNothing())
    .returning('ref')
    .execute();
  return rows.length > 0;
}

/** The message an inbound text's provider id was received as, if it was. */
export async function findInboundRef(db: Kysely<DB>, ref: string): Promise<string | undefined> {
  if (namesNothing(ref)) return undefined;
  const row = await db
    .selectFrom('inbound_refs')
    .select('message_id')
    .where('ref', '=', ref)
    .executeTakeFirst();
  return row?.message_id;
}

/** Forgets at most `limit` refs recorded before `before`; returns how many. */
export async function deleteInboundRefsBefore(
  db: Kysely<DB>,
  before: number,
  limit: number,
): Promise<number> {
  const refs = await db
    .selectFrom('inbound_refs')
    .select('ref')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  if (refs.length === 0) return 0;
  const result = await db
    .deleteFrom('inbound_refs')
    .where(
      'ref',
      'in',
      refs.map((r) => r.ref),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
