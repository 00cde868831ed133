import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, DB } from '../schema.ts';

export type AccountRow = Selectable<AccountsTable>;

/** Inserts an account. */
export async function insertAccount(db: Kysely<DB>, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

/** One account by id, or undefined. */
export function findAccount(db: Kysely<DB>, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** How many accounts exist (zero means a fresh data directory). */
export async function countAccounts(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
