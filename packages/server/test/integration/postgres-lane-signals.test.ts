// The PostgreSQL write lane's signals for other instances, and its pipelined sends.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openStore } from '../../src/store/store.ts';
import { LISTENER_NAME, NOTIFY_QUERY } from '../../src/store/engine/postgres-signal-relay.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startTestApp } from '../support/app.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { peakInFlightDuring, queriesDuring } from '../support/pg-queries.ts';

if (ENGINES.includes('postgres')) {
  describe('write lanes on PostgreSQL: signals for other instances', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase('postgres');
    });
    after(() => database.drop());

    test('while no other instance listens, a batch sends no NOTIFY, and its signals are still emitted in its own process', async () => {
      const store = await openStore(database.options);
      try {
        const heard: unknown[] = [];
        store.signals.on('lane.alone', (payload) => heard.push(payload));
        // Until its listener has looked for others, the store assumes they listen.
        let queries: string[] = [];
        for (let i = 0; i < 100; i++) {
          queries = await queriesDuring(() =>
            store.write(async (tx) => tx.publish('lane.alone', i)),
          );
          if (!queries.includes(NOTIFY_QUERY.text)) break;
          await sleep(20);
        }
        assert.deepEqual(queries, ['begin', 'commit']);
        assert.equal(heard.length > 0 && heard.at(-1), heard.length - 1);
      } finally {
        await store.close();
      }
    });

    test("a command's store does not listen, and relays every batch's signals whoever listens", async () => {
      const store = await openStore({ ...database.options, hearOthers: false });
      try {
        for (let i = 0; i < 3; i++) {
          const queries = await queriesDuring(() =>
            store.write(async (tx) => tx.publish('lane.command', i)),
          );
          assert.deepEqual(queries, ['begin', NOTIFY_QUERY.text, 'commit']);
          await sleep(20);
        }
        // The store of the test before may take a moment to leave pg_stat_activity.
        const client = new pg.Client({ connectionString: database.options.databaseUrl! });
        await client.connect();
        let listeners = -1;
        try {
          for (let i = 0; i < 100 && listeners !== 0; i++) {
            const { rows } = await client.query<{ n: string }>(
              `select count(*) as n from pg_stat_activity
                where datname = current_database() and application_name = $1`,
              [LISTENER_NAME],
            );
            listeners = Number(rows[0]!.n);
            if (listeners !== 0) await sleep(20);
          }
        } finally {
          await client.end();
        }
        assert.equal(listeners, 0, 'no listening connection');
      } finally {
        await store.close();
      }
    });
  });

  describe('write lanes on PostgreSQL: pipelined sends', () => {
    test("the one-to-one sends of a batch go to the server together, behind its begin and its key's lookup, before the first answer comes", async () => {
      const t = await startTestApp('postgres', { background: false });
      try {
        const acct = await t.newAccount();
        const actor = { accountId: acct.accountId, mode: 'test' as const };
        const send = () =>
          t.app.deps.changes.run(
            'sendMessage',
            { actor, input: { from: acct.testNumbers[0]!, to: '+14155550190', body: 'hi' } },
            { apiKey: sha256Hex(acct.testKey) },
          );
        // The first send opens the thread and finds the number's holder: later ones know both.
        await send();
        const peak = await peakInFlightDuring(() =>
          Promise.all(Array.from({ length: 8 }, () => send())),
        );
        // begin, the key's lookup and the eight sends; one at a time without the pipeline.
        assert.equal(peak, 10);
        const stored = await t.store.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', acct.accountId)
          .executeTakeFirstOrThrow();
        assert.equal(Number(stored.n), 9);
      } finally {
        await t.close();
      }
    });
  });
}
