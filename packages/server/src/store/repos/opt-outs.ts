import { sql, type Kysely, type Selectable } from 'kysely';
import { capabilitiesOf } from '../engine/capabilities.ts';
import { compiled, compiledSql } from '../engine/compiled.ts';
import { withIndexedPlans } from '../engine/index-plans.ts';
import type { DB, Mode, OptOutsTable } from '../schema.ts';
import { ownedBy, type Scope } from '../scope.ts';

export type OptOutRow = Selectable<OptOutsTable>;

// Compiled once: every one-to-one send checks its one recipient (see store/engine/compiled.ts).
const selectOptOut = compiled((db: Kysely<DB>, accountId: string, mode: Mode, phone: string) =>
  db
    .selectFrom('opt_outs')
    .select('phone')
    .where(ownedBy({ accountId, mode }))
    .where('phone', '=', phone),
);

/** The opted-out numbers among `phones`. */
export async function optedOutAmong(scope: Scope, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  if (phones.length === 1) {
    const rows = await selectOptOut(scope.db, scope.accountId, scope.mode, phones[0]!);
    return new Set(rows.map((r) => r.phone));
  }
  const rows = await scope.db
    .selectFrom('opt_outs')
    .select('phone')
    .where(ownedBy(scope))
    .where('phone', 'in', phones)
    .execute();
  return new Set(rows.map((r) => r.phone));
}

/** Records an opt-out (idempotent). */
export async function addOptOut(db: Kysely<DB>, row: OptOutRow): Promise<void> {
  await db
    .insertInto('opt_outs')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'mode', 'phone']).doNothing())
    .execute();
}

/** Lifts an opt-out; false when the number had none. */
export async function removeOptOut(scope: Scope, phone: string): Promise<boolean> {
  const result = await scope.db
    .deleteFrom('opt_outs')
    .where(ownedBy(scope))
    .where('phone', '=', phone)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The opt-out list of an account and mode, newest first. */
export function listOptOuts(scope: Scope): Promise<OptOutRow[]> {
  return scope.db
    .selectFrom('opt_outs')
    .selectAll()
    .where(ownedBy(scope))
    .orderBy('created_at', 'desc')
    .execute();
}

/** A message's recipient, by the message's id and the recipient's number. */
export interface RecipientKey {
  message_id: string;
  phone: string;
}

/** A recipient whose number is on its message's opt-out list, and whether the message is an auto-reply. */
export interface OptedOutRecipient extends RecipientKey {
  auto_reply: boolean;
}

/**
 * The recipients listed (message id and number, two arrays on PostgreSQL, one JSON array
 * of pairs on SQLite) whose number has opted out of their message's account and mode,
 * with their message's `auto_reply`. Each row is looked up by its whole key, in a
 * subquery kept apart from the rest (`offset 0`): joined instead, PostgreSQL, holding no
 * statistics for the tables, looked the opt-outs up by account and mode alone and
 * compared the numbers after, walking every opt-out of the account for each recipient
 * (8 ms a round at 200 opt-outs, against 0.4 ms for the round's other read), and could
 * hash-join the messages over their whole index. Kept apart, each lookup is a probe of
 * a primary key whatever the planner knows, under the carrier lane's usual settings
 * (withIndexedPlans, which the round's read of its messages sets anyway).
 */
const selectOptedOutOnPostgres = compiledSql(
  (messageIds: unknown, phones: unknown) => sql<RecipientKey & { auto_reply: number }>`
    select k.message_id, k.phone, m.auto_reply
    from unnest(${messageIds}::text[], ${phones}::text[]) as k(message_id, phone)
    cross join lateral (
      select m.account_id, m.mode, m.auto_reply from messages m
      where m.id = k.message_id
      offset 0
    ) m
    where exists (
      select 1 from opt_outs o
      where o.account_id = m.account_id and o.mode = m.mode and o.phone = k.phone
      offset 0
    )`,
);
const selectOptedOutOnSqlite = compiledSql(
  (pairs: unknown) => sql<RecipientKey & { auto_reply: number }>`
    select k.message_id, k.phone, m.auto_reply
    from (select value ->> 0 as message_id, value ->> 1 as phone from json_each(${pairs})) as k
    join messages m on m.id = k.message_id
    join opt_outs o on o.account_id = m.account_id and o.mode = m.mode and o.phone = k.phone`,
);

/**
 * Of the listed recipients, those whose number is on the opt-out list of their message's
 * account and mode now, read with each dispatcher round's claim: what follows (a send
 * queued before a STOP fails, an auto-reply leaves) is domain/recipient-policy.ts's.
 * One statement for a whole round.
 */
export async function recipientsOptedOut(
  db: Kysely<DB>,
  recipients: readonly RecipientKey[],
): Promise<OptedOutRecipient[]> {
  if (recipients.length === 0) return [];
  let rows: (RecipientKey & { auto_reply: number })[];
  if (capabilitiesOf(db).roundTrips) {
    const messageIds = recipients.map((r) => r.message_id);
    const phones = recipients.map((r) => r.phone);
    rows = await withIndexedPlans(db, () => selectOptedOutOnPostgres(db, messageIds, phones));
  } else {
    const pairs = JSON.stringify(recipients.map((r) => [r.message_id, r.phone]));
    rows = await selectOptedOutOnSqlite(db, pairs);
  }
  return rows.map((r) => ({
    message_id: r.message_id,
    phone: r.phone,
    auto_reply: Number(r.auto_reply) === 1,
  }));
}
