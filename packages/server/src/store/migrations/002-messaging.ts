import type { Kysely } from 'kysely';

/** Conversations, messages and their recipients, the carrier queues, opt-outs and calls. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull()) // 'direct' | 'group'
    .addColumn('account_phone', 'text', (c) => c.notNull())
    // For a direct thread, the other number; null for groups. NULLs never collide
    // in a unique constraint, so one constraint makes direct threads unique.
    .addColumn('peer_phone', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_message_at', 'bigint', (c) => c.notNull())
    .addColumn('unread_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('conversations_direct', [
      'account_id',
      'mode',
      'account_phone',
      'peer_phone',
    ])
    .execute();
  await db.schema
    .createIndex('conversations_inbox')
    .on('conversations')
    .columns(['account_id', 'mode', 'last_message_at'])
    .execute();

  await db.schema
    .createTable('conversation_participants')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('conversation_participants_pk', ['conversation_id', 'phone'])
    .execute();
  await db.schema
    .createIndex('conversation_participants_phone')
    .on('conversation_participants')
    .columns(['phone', 'conversation_id'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('from_phone', 'text', (c) => c.notNull())
    // A group message's `to` is the array of its recipients: JSON text. A direct one: the number.
    .addColumn('to_json', 'text', (c) => c.notNull())
    .addColumn('is_group', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('media_json', 'text', (c) => c.notNull())
    .addColumn('segments', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('sender_name', 'text')
    // Caller ID resolved when an inbound message arrived (the newest contact then).
    .addColumn('contact_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('messages_conversation')
    .on('messages')
    .columns(['conversation_id', 'id'])
    .execute();

  await db.schema
    .createTable('message_recipients')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('carrier_ref', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('message_recipients_pk', ['message_id', 'phone'])
    .execute();
  await db.schema
    .createIndex('message_recipients_carrier_ref')
    .on('message_recipients')
    .column('carrier_ref')
    .execute();

  // Submissions waiting for the carrier: written with the message, deleted once
  // the carrier has taken them. A crash leaves them here to be taken after restart.
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

  // The sandbox carrier's own network: receipts it will report, and when.
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

  await db.schema
    .createTable('opt_outs')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('opt_outs_pk', ['account_id', 'mode', 'phone'])
    .execute();

  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('from_phone', 'text', (c) => c.notNull())
    .addColumn('to_phone', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('calls_account')
    .on('calls')
    .columns(['account_id', 'mode', 'started_at'])
    .execute();
}
