import type { Kysely } from 'kysely';

/**
 * Live carrier connections, configured per account (docs/behaviour.md#carrier-connections).
 * `settings_json` holds what may be shown (host, port, system id, window …); the
 * credentials are sealed apart (`secret_sealed`, lib/secret-box.ts), never in clear.
 * Removing a connection marks it `deleted_at`: the numbers routed to it, and the carrier
 * references of what it sent, keep pointing at a row.
 *
 * A connection's live state is its holder's (`carrier_binds`): the one instance that
 * holds the bind renews a lease on it and writes what a dashboard shows (status, last
 * error, counts). Apart from the configuration, which changes only by command.
 *
 * A live number is routed to one connection (`phone_numbers.carrier_id`); without one it
 * takes the account's first connection. Carrier references are the connection's id and
 * the carrier's own (`car_…/123`): two SMSCs may issue the same message id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('settings_json', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('carrier_connections_account')
    .on('carrier_connections')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createTable('carrier_binds')
    .addColumn('connection_id', 'text', (c) => c.primaryKey().references('carrier_connections.id'))
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('stats_json', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('phone_numbers').addColumn('carrier_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').dropColumn('carrier_id').execute();
  await db.schema.dropTable('carrier_binds').execute();
  await db.schema.dropTable('carrier_connections').execute();
}
