import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DB, Mode } from './schema.ts';

// The isolation rule: a read of an account's data sees that account's rows in one mode and
// nothing else (test keys never see live data, one account never another's). Repositories
// that read account data take a Scope, which only `scoped` makes, and filter with `ownedBy`:
// the rule is written here once. test/integration/scope-isolation.test.ts walks every read
// that takes one.

declare const SCOPE: unique symbol;
declare const ACCOUNT_SCOPE: unique symbol;

/** Who owns the rows: an account, in one mode. */
export interface Owner {
  readonly accountId: string;
  readonly mode: Mode;
}

/**
 * A handle on one account's data in one mode: the connection (a transaction's or the
 * store's) and the owner every read through it is limited to.
 */
export interface Scope extends Owner {
  readonly db: Kysely<DB>;
  readonly [SCOPE]: true;
}

/** A handle on one account's own records, which belong to no mode (its users, its keys). */
export interface AccountScope {
  readonly db: Kysely<DB>;
  readonly accountId: string;
  readonly [ACCOUNT_SCOPE]: true;
}

/** The scope of `owner`'s data (an actor, a message's owner) on `db`. */
export function scoped(db: Kysely<DB>, owner: Owner): Scope {
  return { db, accountId: owner.accountId, mode: owner.mode } as Scope;
}

/** The scope of an account's own records on `db`. */
export function accountScoped(db: Kysely<DB>, accountId: string): AccountScope {
  return { db, accountId } as AccountScope;
}

/** A column, qualified by its table where a query joins several. */
const column = (name: string, table?: string) => sql.ref(table ? `${table}.${name}` : name);

/**
 * The rows `owner` owns, as a condition on a table with `account_id` and `mode` (named as
 * `table` where the query joins others). Its values stay parameters, so a compiled shape
 * (engine/compiled.ts) may pass its arguments through it.
 */
export function ownedBy(owner: Owner, table?: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${column('account_id', table)} = ${owner.accountId} and ${column('mode', table)} = ${owner.mode})`;
}

/** The rows of an account, in any mode (its users, its keys). */
export function ownedByAccount(accountId: string, table?: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${column('account_id', table)} = ${accountId}`;
}
