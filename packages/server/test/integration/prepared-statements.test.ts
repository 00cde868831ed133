import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { findRecipientsLockingMessages, listRecipients } from '../../src/store/repos/messages.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

// On PostgreSQL the fixed shapes of store/engine/compiled.ts run as named prepared statements.
describe('prepared statements (postgres)', { skip: !ENGINES.includes('postgres') }, () => {
  let database: TestDatabase;
  let store: Store;

  before(async () => {
    database = await createTestDatabase('postgres');
    store = await openStore(database.options);
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  test('a fixed shape is prepared once on its connection and run by name', async () => {
    const prepared = await store.write(async (tx) => {
      await listRecipients(tx.db, 'msg_none');
      await listRecipients(tx.db, 'msg_none');
      const { rows } = await sql<{
        statement: string;
      }>`select statement from pg_prepared_statements`.execute(tx.db);
      return rows.map((r) => r.statement);
    });
    const select = prepared.filter((s) =>
      s.startsWith('select * from "message_recipients" where "message_id" = $1'),
    );
    assert.equal(select.length, 1, `prepared: ${prepared.join(' | ')}`);
  });

  test('a statement with an array parameter is planned for its list at every call, never prepared by name', async () => {
    // A named statement gets one generic plan after its first few calls, whatever the
    // array holds; for the receipts' lookup that plan hash-joined the whole messages table.
    const prepared = await store.write(async (tx) => {
      for (let i = 0; i < 8; i++) await findRecipientsLockingMessages(tx.db, [`sbx_none${i}`]);
      const { rows } = await sql<{
        statement: string;
      }>`select statement from pg_prepared_statements`.execute(tx.db);
      return rows.map((r) => r.statement);
    });
    assert.ok(prepared.length > 0, 'the connection prepares its other fixed shapes');
    assert.deepEqual(
      prepared.filter((s) => /= any\(/.test(s)),
      [],
    );
  });

  test('a plan invalidated by another instance’s migration is prepared again, not failed for good', async () => {
    // Prepares the statement on every pooled connection a few reads reach.
    for (let i = 0; i < 5; i++) assert.deepEqual(await listRecipients(store.db, 'msg_none'), []);
    const admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query('ALTER TABLE messages ADD COLUMN added_elsewhere text');
    } finally {
      await admin.end();
    }
    for (let i = 0; i < 5; i++) assert.deepEqual(await listRecipients(store.db, 'msg_none'), []);
  });
});
