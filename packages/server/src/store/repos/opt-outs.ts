import { sql, type Kysely, type Selectable } from 'kysely';
import { engineOf } from '../capabilities.ts';
import { compiled, compiledSql } from '../compiled.ts';
import { withIndexedPlans } from '../index-plans.ts';
import type { DB, Mode, OptOutsTable } from '../schema.ts';

export type OptOutRow = Selectable<OptOutsTable>;

// Compiled once: every one-to-one send checks its one recipient (see store/compiled.ts).
const selectOptOut = compiled((db: Kysely<DB>, accountId: string, mode: Mode, phone: string) =>
  db
    .selectFrom('opt_outs')
    .select('phone')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('phone', '=', phone),
);

/** The opted-out numbers among `phones`. */
export async function optedOutAmong(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  phones: string[],
): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  if (phones.length === 1) {
    return new Set((await selectOptOut(db, accountId, mode, phones[0]!)).map((r) => r.phone));
  }
  const rows = await db
    .selectFrom('opt_outs')
    .select('phone')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
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
export async function removeOptOut(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  phone: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('opt_outs')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('phone', '=', phone)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The opt-out list of an account and mode, newest first. */
export function listOptOuts(db: Kysely<DB>, accountId: string, mode: Mode): Promise<OptOutRow[]> {
  return db
    .selectFrom('opt_outs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .orderBy('created_at', 'desc')
    .execute();
}

/** A message's recipient, by the message's id and the recipient's number. */
export interface RecipientKey {
  message_id: string;
  phone: string;
}

/**
 * The recipients listed (message id and number, two arrays on PostgreSQL, one JSON array
 * of pairs on SQLite) whose number has opted out of their message's account and mode,
 * the platform's own replies aside. Each row is looked up by its whole key, in a
 * subquery kept apart from the rest (`offset 0`): joined instead, PostgreSQL, holding no
 * statistics for the tables, looked the opt-outs up by account and mode alone and
 * compared the numbers after, walking every opt-out of the account for each recipient
 * (8 ms a round at 200 opt-outs, against 0.4 ms for the round's other read), and could
 * hash-join the messages over their whole index. Kept apart, each lookup is a probe of
 * a primary key whatever the planner knows, under the carrier lane's usual settings
 * (withIndexedPlans, which the round's read of its messages sets anyway).
 */
const selectOptedOutOnPostgres = compiledSql(
  (messageIds: unknown, phones: unknown) => sql<RecipientKey>`
    select k.message_id, k.phone
    from unnest(${messageIds}::text[], ${phones}::text[]) as k(message_id, phone)
    cross join lateral (
      select m.account_id, m.mode from messages m
      where m.id = k.message_id and m.auto_reply = 0
      offset 0
    ) m
    where exists (
      select 1 from opt_outs o
      where o.account_id = m.account_id and o.mode = m.mode and o.phone = k.phone
      offset 0
    )`,
);
const selectOptedOutOnSqlite = compiledSql(
  (pairs: unknown) => sql<RecipientKey>`
    select k.message_id, k.phone
    from (select value ->> 0 as message_id, value ->> 1 as phone from json_each(${pairs})) as k
    join messages m on m.id = k.message_id and m.auto_reply = 0
    join opt_outs o on o.account_id = m.account_id and o.mode = m.mode and o.phone = k.phone`,
);

/**
 * Of the listed recipients, those whose number has opted out: a send accepted before
 * its recipient texted STOP must not leave once they have (spec 3.2: further sends are
 * blocked), whatever the order of the two transactions' clocks. The platform's own
 * replies (`auto_reply`: the STOP and START confirmations, the HELP reply) are never
 * blocked (docs/behaviour.md#opt-out), whenever they were queued. One statement for a
 * whole dispatcher round.
 */
export async function recipientsOptedOut(
  db: Kysely<DB>,
  recipients: readonly RecipientKey[],
): Promise<RecipientKey[]> {
  if (recipients.length === 0) return [];
  if (engineOf(db) === 'postgres') {
    const messageIds = recipients.map((r) => r.message_id);
    const phones = recipients.map((r) => r.phone);
    return withIndexedPlans(db, () => selectOptedOutOnPostgres(db, messageIds, phones));
  }
  const pairs = JSON.stringify(recipients.map((r) => [r.message_id, r.phone]));
  return selectOptedOutOnSqlite(db, pairs);
}
