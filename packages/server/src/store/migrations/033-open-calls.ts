import type { Kysely } from 'kysely';

/**
 * Calls answered and not yet ended (docs/behaviour.md#voice): Kamailio reports each answer;
 * its end removes the row as the call is recorded. A call whose end is never seen (Kamailio
 * or Switchboard restarted) is recorded from here with the time it was last known to run
 * (`seen_at`, refreshed from Kamailio's dialogs by the run `run_id` that holds it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('open_calls')
    .addColumn('call_id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('from_phone', 'text', (c) => c.notNull())
    .addColumn('to_phone', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('answered_at', 'bigint', (c) => c.notNull())
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('open_calls').execute();
}
