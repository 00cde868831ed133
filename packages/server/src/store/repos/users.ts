import type { Kysely, Selectable } from 'kysely';
import type { DB, UsersTable } from '../schema.ts';
import { ownedByAccount, type AccountScope } from '../scope.ts';

export type UserRow = Selectable<UsersTable>;

/** Inserts a softphone user. */
export async function insertUser(db: Kysely<DB>, row: UserRow): Promise<void> {
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
