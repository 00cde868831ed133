import { sql, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { Capabilities } from '../capabilities.ts';
import { compiled, compiledInsertRows } from '../compiled.ts';
import type { DB, OutboundQueueTable } from '../schema.ts';

export type OutboundQueueRow = Selectable<OutboundQueueTable>;

/** Every column of `outbound_queue`. */
export const OUTBOUND_COLUMNS = {
  message_id: true,
  phone: true,
  mode: true,
  run_at: true,
  attempts: true,
  locked_until: true,
  last_error: true,
} as const satisfies Record<keyof OutboundQueueTable, true>;

// Compiled once: every send queues its recipients with it (see store/compiled.ts).
const insertOutboundRows = compiledInsertRows('outbound_queue', OUTBOUND_COLUMNS);

/** Queues submissions for the carrier. */
export async function enqueueOutbound(db: Kysely<DB>, rows: OutboundQueueRow[]): Promise<void> {
  await insertOutboundRows(db, rows);
}

/**
 * Claims up to `limit` due submissions for `leaseMs`: a worker that dies while
 * holding them loses the lease and another takes them. PostgreSQL skips rows
 * other instances hold (`SKIP LOCKED`); SQLite has one writer, so a plain
 * `UPDATE … WHERE … IN (SELECT … LIMIT n) RETURNING` is already exclusive.
 */
export function claimOutbound(
  db: Kysely<DB>,
  capabilities: Capabilities,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<OutboundQueueRow[]> {
  return db
    .updateTable('outbound_queue')
    .set((eb) => ({ locked_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
    .where(({ eb, refTuple, selectFrom }) =>
      eb(refTuple('message_id', 'phone'), 'in', () => {
        let q = selectFrom('outbound_queue')
          .select(['message_id', 'phone'])
          .where('run_at', '<=', now)
          .where('locked_until', '<=', now)
          .orderBy('run_at')
          .limit(limit);
        if (capabilities.skipLocked) q = q.forUpdate().skipLocked();
        return q as never;
      }),
    )
    .returningAll()
    .execute();
}

/** A submission's removal from the queue. */
export function submissionRemoval(q: QueryCreator<DB>, messageId: string, phone: string) {
  return q
    .deleteFrom('outbound_queue')
    .where('message_id', '=', messageId)
    .where('phone', '=', phone);
}

// Compiled once: the dispatcher runs it for every submission (see store/compiled.ts).
const deleteOutboundRow = compiled(submissionRemoval);

/** Removes a submission the carrier has taken (or that ended in failure). */
export async function deleteOutbound(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
): Promise<void> {
  await deleteOutboundRow(db, messageId, phone);
}

/** Puts a submission back for a later attempt. */
export async function rescheduleOutbound(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
  runAt: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('outbound_queue')
    .set({ run_at: runAt, locked_until: 0, last_error: error })
    .where('message_id', '=', messageId)
    .where('phone', '=', phone)
    .execute();
}

/** The earliest time a submission is due, or null when the queue is empty. */
export async function nextOutboundDue(db: Kysely<DB>): Promise<number | null> {
  // A leased row is not due before its lease ends, whatever its own time says.
  const row = await db
    .selectFrom('outbound_queue')
    .select(
      sql<
        number | string | null
      >`min(case when run_at > locked_until then run_at else locked_until end)`.as('due'),
    )
    .executeTakeFirst();
  return row?.due == null ? null : Number(row.due);
}
