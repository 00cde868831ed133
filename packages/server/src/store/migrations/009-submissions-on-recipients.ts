import { sql, type Kysely } from 'kysely';

/**
 * A recipient of an outbound message is its own carrier submission, so the
 * submission's schedule lives on the recipient row (`run_at`, `attempts`,
 * `last_error`) instead of in an `outbound_queue` table beside it. A send used to
 * insert a queue row (a table and two indexes) and the dispatcher to delete it
 * again: together a sixth of the statements of a send and a quarter of the pages
 * its commit wrote, for a state the recipient already holds (queued, no carrier
 * reference yet).
 *
 * `message_recipients_due` covers exactly the submissions still to make, in the
 * order they fall due: a recipient leaves it when the carrier's reference is
 * recorded or when it fails. A claim's lease is a `run_at` in the future, so a
 * claimed submission is not due again until the lease has run out.
 *
 * `message_recipients_carrier_ref` now covers only recipients that have a
 * reference: a new recipient has none, and no longer writes an index entry for it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('message_recipients').addColumn('run_at', 'bigint').execute();
  await db.schema
    .alterTable('message_recipients')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('message_recipients').addColumn('last_error', 'text').execute();
  // Submissions still waiting keep their schedule; a leased one is due when its lease ends.
  await sql`
    update message_recipients set
      run_at = (select case when q.run_at > q.locked_until then q.run_at else q.locked_until end
                from outbound_queue q
                where q.message_id = message_recipients.message_id and q.phone = message_recipients.phone),
      attempts = coalesce((select q.attempts from outbound_queue q
                where q.message_id = message_recipients.message_id and q.phone = message_recipients.phone), 0),
      last_error = (select q.last_error from outbound_queue q
                where q.message_id = message_recipients.message_id and q.phone = message_recipients.phone)
    where exists (select 1 from outbound_queue q
                where q.message_id = message_recipients.message_id and q.phone = message_recipients.phone)
  `.execute(db);
  await db.schema.dropTable('outbound_queue').execute();
  await db.schema
    .createIndex('message_recipients_due')
    .on('message_recipients')
    .column('run_at')
    .where(sql.ref('status'), '=', sql.lit('queued'))
    .where(sql.ref('carrier_ref'), 'is', null)
    .execute();
  await db.schema.dropIndex('message_recipients_carrier_ref').execute();
  await db.schema
    .createIndex('message_recipients_carrier_ref')
    .on('message_recipients')
    .column('carrier_ref')
    .where(sql.ref('carrier_ref'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('message_recipients_carrier_ref').execute();
  await db.schema
    .createIndex('message_recipients_carrier_ref')
    .on('message_recipients')
    .column('carrier_ref')
    .execute();
  await db.schema.dropIndex('message_recipients_due').execute();
  await db.schema
    .createTable('outbound_queue')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addPrimaryKeyConstraint('outbound_queue_pk', ['message_id', 'phone'])
    .execute();
  await db.schema
    .createIndex('outbound_queue_due')
    .on('outbound_queue')
    .columns(['run_at'])
    .execute();
  await sql`
    insert into outbound_queue (message_id, phone, mode, run_at, attempts, locked_until, last_error)
    select r.message_id, r.phone, m.mode, r.run_at, r.attempts, 0, r.last_error
    from message_recipients r join messages m on m.id = r.message_id
    where r.status = 'queued' and r.carrier_ref is null and r.run_at is not null
  `.execute(db);
  await db.schema.alterTable('message_recipients').dropColumn('last_error').execute();
  await db.schema.alterTable('message_recipients').dropColumn('attempts').execute();
  await db.schema.alterTable('message_recipients').dropColumn('run_at').execute();
}
