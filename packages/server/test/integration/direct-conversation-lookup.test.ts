// A direct thread is found by its own index, not by reading the account's inbox, on
// both engines and whatever the planner knows of the table.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DIRECT_KEY, findDirectConversation } from '../../src/store/repos/conversations.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { scoped } from '../../src/store/scope.ts';

const CONVERSATIONS = 3000;
const ACCOUNT = 'acct_lookup';
const FROM = '+14155550000';
const AT = Date.UTC(2030, 0, 1);

for (const engine of ENGINES) {
  describe(`direct conversation lookup (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      if (engine === 'postgres') {
        // Never analyzed, as a table is for its first minute, or on a server without autovacuum.
        await sql`alter table conversations set (autovacuum_enabled = false)`.execute(store.db);
      }
      // One account's inbox: direct threads with many numbers, and a group (whose key is null).
      await store.write(async (tx) => {
        await sql`
          with recursive n(i) as (select 1 union all select i + 1 from n where i < ${CONVERSATIONS})
          insert into conversations (id, account_id, mode, kind, account_phone, peer_phone,
            created_at, last_message_at, unread_count)
          select 'cv_' || i, ${ACCOUNT}, 'test', 'direct', ${FROM}, '+1415666' || (1000 + i),
            cast(${AT} as bigint), cast(${AT} as bigint) + i, 0
          from n`.execute(tx.db);
        await sql`
          insert into conversations (id, account_id, mode, kind, account_phone, peer_phone,
            created_at, last_message_at, unread_count)
          values ('cv_group', ${ACCOUNT}, 'test', 'group', ${FROM}, null, cast(${AT} as bigint), cast(${AT} as bigint), 0)`.execute(
          tx.db,
        );
      });
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    test('a thread is found by its numbers, in its account and mode only', async () => {
      const found = await findDirectConversation(
        scoped(store.db, { accountId: ACCOUNT, mode: 'test' }),
        FROM,
        '+14156662500',
      );
      assert.equal(found?.id, 'cv_1500');
      assert.equal(
        await findDirectConversation(
          scoped(store.db, { accountId: ACCOUNT, mode: 'live' }),
          FROM,
          '+14156662500',
        ),
        undefined,
      );
      assert.equal(
        await findDirectConversation(
          scoped(store.db, { accountId: 'acct_other', mode: 'test' }),
          FROM,
          '+14156662500',
        ),
        undefined,
      );
    });

    if (engine === 'postgres') {
      test('PostgreSQL without statistics fetches the one row, not the account’s inbox', async () => {
        const fetched = await store.write(
          async (tx) => {
            await findDirectConversation(
              scoped(tx.db, { accountId: ACCOUNT, mode: 'test' }),
              FROM,
              '+14156662500',
            );
            const { rows } = await sql<{ fetched: string }>`
              select coalesce(idx_tup_fetch, 0) + seq_tup_read as fetched
              from pg_stat_xact_user_tables where relname = 'conversations'`.execute(tx.db);
            return Number(rows[0]!.fetched);
          },
          { durable: false },
        );
        assert.equal(fetched, 1);
      });
    } else {
      test('SQLite reads the thread through the key’s index', async () => {
        const { rows } = await sql<{ detail: string }>`
          explain query plan select * from conversations where ${DIRECT_KEY} = ${'x'}`.execute(
          store.db,
        );
        assert.match(rows.map((r) => r.detail).join('\n'), /USING INDEX conversations_direct_key/);
      });
    }
  });
}
