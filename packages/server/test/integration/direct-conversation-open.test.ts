// A direct thread is opened with its participant, once, on both engines: a second
// opening of the same numbers (a concurrent first message's) yields to the first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { findOrCreateDirectConversation } from '../../src/commands/conversations.ts';
import {
  createDirectConversation,
  findDirectConversation,
  listParticipants,
  type ConversationRow,
} from '../../src/store/repos/conversations.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { scoped } from '../../src/store/scope.ts';

const ACCOUNT = 'acct_open';
const FROM = '+14155550000';
const AT = Date.UTC(2030, 0, 1);

const thread = (id: string, peer: string, at = AT): ConversationRow => ({
  id,
  account_id: ACCOUNT,
  mode: 'test',
  kind: 'direct',
  account_phone: FROM,
  peer_phone: peer,
  created_at: at,
  last_message_at: at,
  unread_count: 0,
});

for (const engine of ENGINES) {
  describe(`opening a direct conversation (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    test('a new thread is returned as stored, with its number as its one active participant, added when it opened', async () => {
      const row = thread('cv_open_1', '+14156660001');
      const created = await store.write((tx) => createDirectConversation(tx.db, row));
      assert.deepEqual(created, row);
      assert.deepEqual(
        await findDirectConversation(
          scoped(store.db, { accountId: ACCOUNT, mode: 'test' }),
          FROM,
          '+14156660001',
        ),
        row,
      );
      assert.deepEqual(await listParticipants(store.db, 'cv_open_1', true), [
        { conversation_id: 'cv_open_1', phone: '+14156660001', active: 1, added_at: AT },
      ]);
    });

    test('a second opening of the same numbers returns nothing and adds nothing: the first thread stays the only one', async () => {
      await store.write((tx) =>
        createDirectConversation(tx.db, thread('cv_open_2', '+14156660002')),
      );
      const again = await store.write((tx) =>
        createDirectConversation(tx.db, thread('cv_open_3', '+14156660002', AT + 1000)),
      );
      assert.equal(again, undefined);
      assert.equal(
        (
          await findDirectConversation(
            scoped(store.db, { accountId: ACCOUNT, mode: 'test' }),
            FROM,
            '+14156660002',
          )
        )?.id,
        'cv_open_2',
      );
      assert.deepEqual(await listParticipants(store.db, 'cv_open_3', true), []);
      assert.equal((await listParticipants(store.db, 'cv_open_2', true)).length, 1);
    });

    test('the same other number with another account number, or in the other mode, is another thread', async () => {
      const live = { ...thread('cv_open_4', '+14156660003'), mode: 'live' as const };
      const otherLine = { ...thread('cv_open_5', '+14156660003'), account_phone: '+14155550001' };
      await store.write((tx) =>
        createDirectConversation(tx.db, thread('cv_open_6', '+14156660003')),
      );
      assert.deepEqual(await store.write((tx) => createDirectConversation(tx.db, live)), live);
      assert.deepEqual(
        await store.write((tx) => createDirectConversation(tx.db, otherLine)),
        otherLine,
      );
    });

    if (engine === 'postgres') {
      test('a first message whose thread another transaction is opening waits for it, then takes that thread', async () => {
        const admin = new pg.Client({ connectionString: database.options.databaseUrl! });
        await admin.connect();
        try {
          await admin.query('begin');
          await admin.query(
            `insert into conversations (id, account_id, mode, kind, account_phone, peer_phone,
               created_at, last_message_at, unread_count)
             values ('cv_open_other', $1, 'test', 'direct', $2, '+14156660009', $3, $3, 0)`,
            [ACCOUNT, FROM, AT],
          );
          let settled = false;
          const opening = store
            .write((tx) =>
              findOrCreateDirectConversation(
                tx,
                { accountId: ACCOUNT, mode: 'test' },
                FROM,
                '+14156660009',
                AT + 1000,
              ),
            )
            .finally(() => (settled = true));
          await sleep(300);
          assert.equal(settled, false, 'the insert waits for the other transaction');
          await admin.query('commit');
          assert.equal((await opening).id, 'cv_open_other');
        } finally {
          await admin.end();
        }
        const threads = await store.db
          .selectFrom('conversations')
          .select('id')
          .where('peer_phone', '=', '+14156660009')
          .execute();
        assert.deepEqual(threads, [{ id: 'cv_open_other' }]);
      });
    }
  });
}
