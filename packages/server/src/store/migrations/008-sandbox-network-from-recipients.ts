import { sql, type Kysely } from 'kysely';

/**
 * The sandbox carrier no longer keeps a table of the receipts it will report:
 * what it still owes is a function of the recipients it took (their carrier
 * reference, status and time of their last change, see
 * carriers/sandbox/sandbox-carrier.ts). Each message wrote, leased and deleted
 * two rows there, about a tenth of the statements of its life, for a state
 * the recipients already hold. A receipt pending in the dropped table belongs
 * to a recipient that is still in flight, so it is reported from there.
 *
 * The index covers the recipients a carrier took and has not settled, in the
 * order they last changed: the sandbox reads it when it starts and, every few
 * seconds, for receipts overdue because another instance stopped. Recipients
 * enter it when their reference is recorded and leave it when delivered or
 * failed, so it stays as small as the traffic in flight.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sandbox_receipts').execute();
  await db.schema
    .createIndex('message_recipients_in_flight')
    .on('message_recipients')
    .columns(['updated_at', 'carrier_ref'])
    .where(sql.ref('carrier_ref'), 'is not', null)
    .where(sql.ref('status'), 'in', ['queued', 'sent'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('message_recipients_in_flight').execute();
  await db.schema
    .createTable('sandbox_receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('carrier_ref', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('sandbox_receipts_due')
    .on('sandbox_receipts')
    .columns(['due_at'])
    .execute();
}
