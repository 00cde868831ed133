import type { Kysely } from 'kysely';

/**
 * The parts of a long text sent as several SMPP messages (docs/behaviour.md#carrier-connections):
 * the SMSC issues an id and a receipt per part, and the recipient's status follows them all
 * (delivered once every part is, failed once one fails). A recipient's `carrier_ref` is its
 * first part's; each part's own reference leads to it here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_parts')
    .addColumn('part_ref', 'text', (c) => c.primaryKey())
    .addColumn('carrier_ref', 'text', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('carrier_parts_carrier_ref')
    .on('carrier_parts')
    .column('carrier_ref')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('carrier_parts').execute();
}
