import { sql, type Kysely } from 'kysely';
import { claiming } from '../engine/capabilities.ts';
import { compiled } from '../engine/compiled.ts';
import type { DB } from '../schema.ts';

/** A submission the dispatcher claimed: one recipient of an outbound message. */
export interface ClaimedSubmission {
  message_id: string;
  phone: string;
  /** Attempts so far, this one included. */
  attempts: number;
}

/**
 * The condition of the partial index `message_recipients_due` (migration 009),
 * word for word and with literals: SQLite uses a partial index only for a query
 * that states its condition, and cannot see through a parameter.
 */
const STILL_TO_SUBMIT = sql<boolean>`status = 'queued' and carrier_ref is null`;

/**
 * Claims up to `limit` due submissions for `leaseMs`: their `run_at` moves to the
 * end of the lease, so a worker that dies while holding them only delays them.
 * PostgreSQL skips rows other instances hold (`SKIP LOCKED`); SQLite has one
 * writer, so a plain `UPDATE … WHERE … IN (SELECT … LIMIT n) RETURNING` is
 * already exclusive.
 */
export function claimSubmissions(
  db: Kysely<DB>,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<ClaimedSubmission[]> {
  return db
    .updateTable('message_recipients')
    .set((eb) => ({ run_at: now + leaseMs, attempts: eb('attempts', '+', 1) }))
    .where(({ eb, refTuple, selectFrom }) =>
      eb(refTuple('message_id', 'phone'), 'in', () => {
        const q = selectFrom('message_recipients')
          .select(['message_id', 'phone'])
          .where(STILL_TO_SUBMIT)
          .where('run_at', '<=', now)
          .orderBy('run_at')
          .limit(limit);
        return claiming(db, q as never) as never;
      }),
    )
    .returning(['message_id', 'phone', 'attempts'])
    .execute();
}

/** Puts a claimed submission back for a later attempt (never again when `runAt` is null), with what went wrong. */
export async function rescheduleSubmission(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
  runAt: number | null,
  error: string,
): Promise<void> {
  await db
    .updateTable('message_recipients')
    .set({ run_at: runAt, last_error: error })
    .where('message_id', '=', messageId)
    .where('phone', '=', phone)
    .execute();
}

/**
 * Puts a claimed submission back without spending its attempt (its carrier connection was
 * not bound: nothing was sent), to be tried at `runAt`.
 */
export async function deferSubmission(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
  runAt: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('message_recipients')
    .set((eb) => ({ run_at: runAt, last_error: error, attempts: eb('attempts', '-', 1) }))
    .where('message_id', '=', messageId)
    .where('phone', '=', phone)
    .execute();
}

// Compiled once: the dispatcher asks after every round that leaves work behind.
const selectNextDue = compiled((db: Kysely<DB>) =>
  db
    .selectFrom('message_recipients')
    .select((eb) => eb.fn.min('run_at').as('due'))
    .where(STILL_TO_SUBMIT),
);

/** The earliest time a submission is due (a claimed one when its lease ends), or null when none waits. */
export async function nextSubmissionDue(db: Kysely<DB>): Promise<number | null> {
  const [row] = await selectNextDue(db);
  return row?.due == null ? null : Number(row.due);
}
