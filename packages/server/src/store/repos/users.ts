import type { Kysely, Selectable } from 'kysely';
import type { DB, UsersTable } from '../schema.ts';
import { ownedByAccount, type AccountScope } from '../scope.ts';

export type UserRow = Selectable<UsersTable>;

/** Inserts a softphone user. */
export async function insertUser(db: Kysely<DB>, row: Omit<UserRow, 'disabled_at'>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** The user with this email (emails are stored lower-case). */
export function findUserByEmail(db: Kysely<DB>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

/** One user by id. */
export function findUser(db: Kysely<DB>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The team of an account, oldest first. */
export function listUsers(scope: AccountScope): Promise<UserRow[]> {
  return scope.db
    .selectFrom('users')
    .selectAll()
    .where(ownedByAccount(scope.accountId))
    .orderBy('created_at', 'asc')
    .execute();
}

/** One user of this account by id. */
export function findTeammate(scope: AccountScope, id: string): Promise<UserRow | undefined> {
  return scope.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .where(ownedByAccount(scope.accountId))
    .executeTakeFirst();
}

/** Changes a user's role, disabled time or password hash. */
export async function updateUser(
  db: Kysely<DB>,
  id: string,
  patch: Partial<Pick<UserRow, 'role' | 'disabled_at' | 'password_hash'>>,
): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

/** Forgets a user (their sessions must be gone first). */
export async function deleteUser(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/** How many enabled owners the account has. */
export async function countEnabledOwners(scope: AccountScope): Promise<number> {
  const row = await scope.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(ownedByAccount(scope.accountId))
    .where('role', '=', 'owner')
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
