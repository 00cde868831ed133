import type { Kysely, Selectable } from 'kysely';
import { compiled } from '../compiled.ts';
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

/** Lifts an opt-out. */
export async function removeOptOut(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  phone: string,
): Promise<void> {
  await db
    .deleteFrom('opt_outs')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('phone', '=', phone)
    .execute();
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
