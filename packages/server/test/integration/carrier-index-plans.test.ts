// On PostgreSQL, the carrier side's batch statements find their rows by index even in
// tables the planner holds no statistics for (new, or grown since the last ANALYZE).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import {
  findMessagesByIds,
  findRecipientsLockingMessages,
} from '../../src/store/repos/messages.ts';
import { moveRecipients, recordCarrierRefs } from '../../src/store/repos/recipient-moves.ts';
import type { DB } from '../../src/store/schema.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

const MESSAGES = 40_000;
const AT = Date.UTC(2030, 0, 1);

/** Reads of `table` in the current transaction, by kind (PostgreSQL's own counters). */
async function scansIn(db: Kysely<DB>, table: string): Promise<{ seq: number; index: number }> {
  const { rows } = await sql<{ seq: string; index: string }>`
    select seq_scan as seq, coalesce(idx_scan, 0) as index
    from pg_stat_xact_user_tables where relname = ${table}`.execute(db);
  return { seq: Number(rows[0]!.seq), index: Number(rows[0]!.index) };
}

const messageId = (i: number) => `msg_${String(i).padStart(6, '0')}`;
const PHONE = '+14155550100';

describe(
  'the carrier side on PostgreSQL, without statistics',
  { skip: !ENGINES.includes('postgres') },
  () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase('postgres');
      store = await openStore(database.options);
      // Never analyzed, as a table is for its first minute, or on a server without autovacuum.
      for (const table of ['messages', 'message_recipients']) {
        await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(
          store.db,
        );
      }
      // Sent messages, each with a recipient the carrier has a reference for.
      await sql`
        insert into messages (id, account_id, mode, conversation_id, direction, from_phone, to_json,
          is_group, body, media_json, segments, status, created_at, updated_at)
        select 'msg_' || lpad(i::text, 6, '0'), 'acct_1', 'test', 'conv_' || (i % 1000), 'outbound',
          '+14155550000', '"+14155550100"', 0, 'Hello', '[]', 1, 'sent', ${AT}::bigint, ${AT}::bigint
        from generate_series(1, ${MESSAGES}) as i`.execute(store.db);
      await sql`
        insert into message_recipients (message_id, phone, status, carrier_ref, updated_at)
        select 'msg_' || lpad(i::text, 6, '0'), ${PHONE}, 'sent', 'ref_' || i, ${AT}::bigint
        from generate_series(1, ${MESSAGES}) as i`.execute(store.db);
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    test('a batch of receipts finds its recipients and messages by index', async () => {
      const refs = Array.from({ length: 50 }, (_, i) => `ref_${1000 + i * 7}`);
      const { found, recipients, messages } = await store.write(
        async (tx) => ({
          found: await findRecipientsLockingMessages(tx.db, refs),
          recipients: await scansIn(tx.db, 'message_recipients'),
          messages: await scansIn(tx.db, 'messages'),
        }),
        { durable: false },
      );
      assert.equal(found.size, 50);
      assert.deepEqual(
        { recipients: recipients.seq, messages: messages.seq },
        { recipients: 0, messages: 0 },
        'no table read end to end',
      );
      assert.ok(recipients.index > 0 && messages.index > 0);
    });

    test("a batch of recipients' moves updates them by index", async () => {
      const moves = Array.from({ length: 250 }, (_, i) => ({
        messageId: messageId(2000 + i * 11),
        phone: PHONE,
        from: 'sent' as const,
        status: 'delivered' as const,
        failureReason: null,
        at: AT + 1,
        message: { status: 'delivered' as const, failureReason: null },
      }));
      const { applied, recipients, messages } = await store.write(
        async (tx) => ({
          applied: await moveRecipients(tx.db, moves),
          recipients: await scansIn(tx.db, 'message_recipients'),
          messages: await scansIn(tx.db, 'messages'),
        }),
        { durable: false },
      );
      assert.equal(applied.size, 250);
      assert.deepEqual(
        { recipients: recipients.seq, messages: messages.seq },
        {
          recipients: 0,
          messages: 0,
        },
      );
    });

    test("a round's carrier references are recorded by index", async () => {
      const refs = Array.from({ length: 250 }, (_, i) => ({
        messageId: messageId(30_000 + i * 13),
        phone: PHONE,
        carrierRef: `new_ref_${i}`,
      }));
      const recipients = await store.write(
        async (tx) => {
          await recordCarrierRefs(tx.db, refs, AT + 2);
          return scansIn(tx.db, 'message_recipients');
        },
        { durable: false },
      );
      assert.equal(recipients.seq, 0);
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from message_recipients where carrier_ref like 'new_ref_%'`.execute(
        store.db,
      );
      assert.equal(Number(rows[0]!.n), 250);
    });

    test("a dispatcher round's messages are read by index", async () => {
      const ids = Array.from({ length: 500 }, (_, i) => messageId(5000 + i * 3));
      const { rows, messages } = await store.write(
        async (tx) => ({
          rows: await findMessagesByIds(tx.db, ids),
          messages: await scansIn(tx.db, 'messages'),
        }),
        { durable: false },
      );
      assert.equal(rows.length, 500);
      assert.equal(messages.seq, 0);
    });

    test('the settings end with the transaction', async () => {
      await store.write((tx) => findRecipientsLockingMessages(tx.db, ['ref_1']));
      const setting = await store.write(async (tx) => {
        const { rows } = await sql<{ seqscan: string; jit: string }>`
          select current_setting('enable_seqscan') as seqscan, current_setting('jit') as jit`.execute(
          tx.db,
        );
        return rows[0]!;
      });
      assert.deepEqual(setting, { seqscan: 'on', jit: 'on' });
    });
  },
);
