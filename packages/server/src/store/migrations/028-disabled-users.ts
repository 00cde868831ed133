import type { Kysely } from 'kysely';

/**
 * A teammate an owner disabled keeps their login but cannot sign in, and every session of
 * theirs ends (docs/behaviour.md#team). Null while enabled.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('disabled_at').execute();
}
