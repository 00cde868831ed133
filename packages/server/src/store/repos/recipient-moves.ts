import { sql, type Kysely, type QueryCreator } from 'kysely';
import { compiled, compiledChanges, compiledSql } from '../engine/compiled.ts';
import { withIndexedPlans } from '../engine/index-plans.ts';
import { capabilitiesOf } from '../engine/capabilities.ts';
import type { DB } from '../schema.ts';
import { writesConcurrently, type MessageRow, type RecipientRow } from './messages.ts';

// The writes that move recipients and their messages along (status, failure reason,
// carrier reference), one at a time or a whole batch in one statement on PostgreSQL.

/** A recipient moved from `from` to `status`; it changes nothing if its status is no longer `from`. */
function recipientMove(
  q: QueryCreator<DB>,
  messageId: string,
  phone: string,
  from: RecipientRow['status'],
  status: RecipientRow['status'],
  failureReason: string | null,
  at: number,
) {
  return q
    .updateTable('message_recipients')
    .set({ status, failure_reason: failureReason, updated_at: at })
    .where('message_id', '=', messageId)
    .where('phone', '=', phone)
    .where('status', '=', from);
}

const setRecipientStatus = compiledChanges(recipientMove);
// The reference the carrier gave a recipient's submission: the recipient leaves the due
// submissions (message_recipients_due) and is found by the reference from then on.
const setRecipientCarrierRef = compiled(
  (db: Kysely<DB>, messageId: string, phone: string, carrierRef: string, at: number) =>
    db
      .updateTable('message_recipients')
      .set({ carrier_ref: carrierRef, updated_at: at })
      .where('message_id', '=', messageId)
      .where('phone', '=', phone),
);
const setMessageStatus = compiled(
  (
    db: Kysely<DB>,
    id: string,
    status: MessageRow['status'],
    failureReason: string | null,
    at: number,
  ) =>
    db
      .updateTable('messages')
      .set({ status, failure_reason: failureReason, updated_at: at })
      .where('id', '=', id),
);

/**
 * On PostgreSQL, a recipient's move and its message's new overall status in one
 * statement: the message is updated only if the recipient was still in `from`.
 * A receipt's writes run one statement per round trip on the carrier lane.
 */
const setRecipientAndMessageStatus = compiledChanges(
  (
    db: Kysely<DB>,
    messageId: string,
    phone: string,
    from: RecipientRow['status'],
    status: RecipientRow['status'],
    failureReason: string | null,
    at: number,
    messageStatus: MessageRow['status'],
    messageFailureReason: string | null,
  ) =>
    db
      .with('moved', (q) =>
        recipientMove(q, messageId, phone, from, status, failureReason, at).returning('phone'),
      )
      .updateTable('messages')
      .set({ status: messageStatus, failure_reason: messageFailureReason, updated_at: at })
      .where('id', '=', messageId)
      .where((eb) => eb.exists(eb.selectFrom('moved').select('moved.phone'))),
);

/**
 * Moves a recipient from status `from` to `status` (the state machine decided it
 * may) and, with it, its message to `message`'s overall status when that changes;
 * false, changing nothing, if the recipient's status is no longer `from`. The
 * caller holds the message's lock (lockMessageById), so the message row is there.
 */
export async function updateRecipientStatus(
  db: Kysely<DB>,
  messageId: string,
  phone: string,
  from: RecipientRow['status'],
  status: RecipientRow['status'],
  failureReason: string | null,
  at: number,
  message: { status: MessageRow['status']; failureReason: string | null } | null,
): Promise<boolean> {
  if (message && writesConcurrently(db)) {
    const changed = await setRecipientAndMessageStatus(
      db,
      messageId,
      phone,
      from,
      status,
      failureReason,
      at,
      message.status,
      message.failureReason,
    );
    return changed > 0;
  }
  const moved =
    (await setRecipientStatus(db, messageId, phone, from, status, failureReason, at)) > 0;
  if (moved && message) {
    await setMessageStatus(db, messageId, message.status, message.failureReason, at);
  }
  return moved;
}

/** One recipient's move for `moveRecipients` (the arguments of updateRecipientStatus). */
export interface RecipientMove {
  messageId: string;
  phone: string;
  from: RecipientRow['status'];
  status: RecipientRow['status'];
  failureReason: string | null;
  at: number;
  /** The message's new overall status, or null where it does not change. */
  message: { status: MessageRow['status']; failureReason: string | null } | null;
}

/**
 * Recipients' moves, each with its message's new status, in one statement: each
 * column an array parameter turned back into rows by `unnest` (planned per call,
 * see ShapeOptions). A move applies only if its recipient's status is still its
 * `from`, and its message changes only with it, as updateRecipientStatus's.
 */
const moveRecipientsAndMessages = compiledSql(
  (
    messageIds: string[],
    phones: string[],
    froms: string[],
    statuses: string[],
    failureReasons: (string | null)[],
    ats: number[],
    messageStatuses: (string | null)[],
    messageFailureReasons: (string | null)[],
  ) =>
    sql<{ message_id: string; phone: string }>`with "s" as (
  select * from unnest(${messageIds}::text[], ${phones}::text[], ${froms}::text[], ${statuses}::text[], ${failureReasons}::text[], ${ats}::bigint[], ${messageStatuses}::text[], ${messageFailureReasons}::text[])
    as "s"("message_id", "phone", "from_status", "status", "failure_reason", "at", "message_status", "message_failure_reason")
), "moved" as (
  update "message_recipients" as "r"
  set "status" = "s"."status", "failure_reason" = "s"."failure_reason", "updated_at" = "s"."at"
  from "s"
  where "r"."message_id" = "s"."message_id" and "r"."phone" = "s"."phone" and "r"."status" = "s"."from_status"
  returning "r"."message_id", "r"."phone"
), "messages_moved" as (
  update "messages" as "m"
  set "status" = "s"."message_status", "failure_reason" = "s"."message_failure_reason", "updated_at" = "s"."at"
  from "s"
  where "m"."id" = "s"."message_id" and "s"."message_status" is not null
    and ("s"."message_id", "s"."phone") in (select "message_id", "phone" from "moved")
)
select "message_id", "phone" from "moved"`,
  { planEachCall: true },
);

/**
 * Applies several moves of recipients of different messages (PostgreSQL: one
 * statement; elsewhere one updateRecipientStatus each) and returns the ones that
 * applied, as `messageId phone` keys. The caller holds the messages' locks.
 */
export async function moveRecipients(
  db: Kysely<DB>,
  moves: readonly RecipientMove[],
): Promise<Set<string>> {
  const applied = new Set<string>();
  if (moves.length > 1 && capabilitiesOf(db).roundTrips) {
    const rows = await withIndexedPlans(db, () =>
      moveRecipientsAndMessages(
        db,
        moves.map((m) => m.messageId),
        moves.map((m) => m.phone),
        moves.map((m) => m.from),
        moves.map((m) => m.status),
        moves.map((m) => m.failureReason),
        moves.map((m) => m.at),
        moves.map((m) => m.message?.status ?? null),
        moves.map((m) => m.message?.failureReason ?? null),
      ),
    );
    for (const row of rows) applied.add(`${row.message_id} ${row.phone}`);
    return applied;
  }
  for (const m of moves) {
    const { messageId, phone, from, status, failureReason, at, message } = m;
    if (await updateRecipientStatus(db, messageId, phone, from, status, failureReason, at, message))
      applied.add(`${messageId} ${phone}`);
  }
  return applied;
}

/** A recipient's submission the carrier accepted, and the reference it gave it. */
export interface CarrierRef {
  messageId: string;
  phone: string;
  carrierRef: string;
}

/**
 * The references of a round's accepted submissions in one statement on PostgreSQL,
 * where the dispatcher's lane runs one statement per round trip: each column a
 * parameter holding an array, turned back into rows by `unnest`. Planned per call
 * (array parameters, see ShapeOptions).
 */
const setRecipientCarrierRefs = compiledSql(
  (messageIds: string[], phones: string[], carrierRefs: string[], at: number) =>
    sql`update "message_recipients" as "r"
set "carrier_ref" = "s"."carrier_ref", "updated_at" = ${at}
from unnest(${messageIds}::text[], ${phones}::text[], ${carrierRefs}::text[]) as "s"("message_id", "phone", "carrier_ref")
where "r"."message_id" = "s"."message_id" and "r"."phone" = "s"."phone"`,
  { planEachCall: true },
);

/** Records the references the carrier gave recipients' submissions, all at `at`. */
export async function recordCarrierRefs(
  db: Kysely<DB>,
  refs: readonly CarrierRef[],
  at: number,
): Promise<void> {
  if (refs.length > 1 && capabilitiesOf(db).roundTrips) {
    await withIndexedPlans(db, () =>
      setRecipientCarrierRefs(
        db,
        refs.map((r) => r.messageId),
        refs.map((r) => r.phone),
        refs.map((r) => r.carrierRef),
        at,
      ),
    );
    return;
  }
  for (const { messageId, phone, carrierRef } of refs) {
    await setRecipientCarrierRef(db, messageId, phone, carrierRef, at);
  }
}
