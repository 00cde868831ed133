import type { Kysely } from 'kysely';

/**
 * The parts of a concatenated text from a handset that have come so far
 * (docs/behaviour.md#carrier-connections). Each is kept here before the carrier is answered
 * for it, so a restart between two parts loses nothing; the text is received in the same
 * transaction that deletes its parts. `text_key` names the text within its connection.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_inbound_parts')
    .addColumn('text_key', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('part_json', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_inbound_parts_pk', ['text_key', 'seq'])
    .execute();
  await db.schema
    .createIndex('carrier_inbound_parts_received_at')
    .on('carrier_inbound_parts')
    .column('received_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('carrier_inbound_parts').execute();
}
