import { sql, type Kysely } from 'kysely';
import type { DB, MessageRecipientsTable } from '../schema.ts';

/** A recipient a carrier has taken and not settled, as the carrier's bookkeeping needs it. */
export interface InFlightRecipient {
  carrier_ref: string;
  phone: string;
  status: 'queued' | 'sent';
  updated_at: number;
}

/** Where a page of in-flight recipients ends: the next page starts after it. */
export interface InFlightCursor {
  updatedAt: number;
  carrierRef: string;
}

/**
 * Recipients a carrier took (their reference is recorded) that are not yet
 * delivered or failed, whose reference starts with `refPrefix` (one carrier's),
 * last changed in `[changedFrom, changedBefore)`, in the order they changed,
 * `limit` at a time after `after`. Served by the partial index
 * `message_recipients_in_flight` (migration 008), whose condition the query repeats
 * word for word: SQLite uses a partial index only for a query that states it.
 */
export async function listInFlightRecipients(
  db: Kysely<DB>,
  options: {
    refPrefix: string;
    changedFrom: number;
    changedBefore: number;
    after: InFlightCursor | null;
    limit: number;
  },
): Promise<InFlightRecipient[]> {
  const { refPrefix, changedFrom, changedBefore, after, limit } = options;
  let query = db
    .selectFrom('message_recipients')
    .select(['carrier_ref', 'phone', 'status', 'updated_at'])
    // Literals, not parameters: the planner must see that this implies the index's condition.
    .where('carrier_ref', 'is not', null)
    .where(sql<boolean>`status in ('queued', 'sent')`)
    .where('updated_at', '>=', changedFrom)
    .where('updated_at', '<', changedBefore)
    .where(sql<boolean>`substr(carrier_ref, 1, ${refPrefix.length}) = ${refPrefix}`);
  if (after) {
    query = query.where((eb) =>
      eb(
        eb.refTuple('updated_at', 'carrier_ref'),
        '>',
        eb.tuple(after.updatedAt, after.carrierRef),
      ),
    );
  }
  const rows = await query.orderBy('updated_at').orderBy('carrier_ref').limit(limit).execute();
  return rows as (Pick<MessageRecipientsTable, 'phone' | 'updated_at'> & {
    carrier_ref: string;
    status: 'queued' | 'sent';
  })[];
}
