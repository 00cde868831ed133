import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/store.ts';
import type { WriteTx } from '../../src/store/engine/write-queue.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`write batches (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await store.write((tx) =>
        sql`create table batch_rows (id text primary key)`.execute(tx.db).then(() => undefined),
      );
    });
    after(async () => {
      await store.close();
      await database.drop();
    });
    beforeEach(async () => {
      await store.write((tx) => sql`delete from batch_rows`.execute(tx.db).then(() => undefined));
    });

    const insert = (tx: WriteTx, id: string) =>
      sql`insert into batch_rows (id) values (${id})`.execute(tx.db);
    const rows = async () =>
      (await sql<{ id: string }>`select id from batch_rows order by id`.execute(store.db)).rows.map(
        (r) => r.id,
      );

    test('units of one batch all commit, each run once', async () => {
      const runs = { a: 0, b: 0, c: 0 };
      const results = await Promise.all(
        (['a', 'b', 'c'] as const).map((id) =>
          store.write(async (tx) => {
            runs[id]++;
            await insert(tx, id);
            return id;
          }),
        ),
      );
      assert.deepEqual(results, ['a', 'b', 'c']);
      assert.deepEqual(runs, { a: 1, b: 1, c: 1 });
      assert.deepEqual(await rows(), ['a', 'b', 'c']);
    });

    test('a unit that throws rolls back alone: the others of its batch commit, and their signals and after-commit work happen once', async () => {
      const heard: unknown[] = [];
      const onSignal = (payload: unknown) => heard.push(payload);
      store.signals.on('batch.test', onSignal);
      let afterCommits = 0;
      try {
        const settled = await Promise.allSettled([
          store.write(async (tx) => {
            await insert(tx, 'a');
            tx.publish('batch.test', 'a');
            tx.afterCommit(() => afterCommits++);
            return 'a';
          }),
          store.write(async (tx) => {
            await insert(tx, 'b');
            throw new Error('b changed its mind');
          }),
          store.write(async (tx) => {
            await insert(tx, 'c');
            tx.publish('batch.test', 'c');
            return 'c';
          }),
        ]);
        assert.deepEqual(
          settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
          ['a', 'b changed its mind', 'c'],
        );
        assert.deepEqual(await rows(), ['a', 'c'], "b's insert was rolled back, nothing else");
        assert.deepEqual(heard, ['a', 'c']);
        assert.equal(afterCommits, 1);
      } finally {
        store.signals.off('batch.test', onSignal);
      }
    });

    test('a statement that fails in the database (a duplicate key) fails its unit alone', async () => {
      await store.write((tx) => insert(tx, 'taken'));
      const settled = await Promise.allSettled([
        store.write((tx) => insert(tx, 'x')),
        store.write((tx) => insert(tx, 'taken')),
        store.write((tx) => insert(tx, 'y')),
      ]);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(await rows(), ['taken', 'x', 'y']);
    });

    test('a unit that swallows a database error is never answered as committed when its batch could not commit', async () => {
      await store.write((tx) => insert(tx, 'taken'));
      const settled = await Promise.allSettled([
        store.write((tx) => insert(tx, 'before')),
        store.write(async (tx) => {
          // What a unit must not do (see WriteUnit); PostgreSQL aborts the transaction.
          await insert(tx, 'taken').catch(() => undefined);
          return 'swallowed';
        }),
      ]);
      assert.equal(settled[0]!.status, 'fulfilled');
      if (engine === 'postgres') {
        // The batch ran again with a savepoint per unit, and only the culprit failed.
        assert.equal(settled[1]!.status, 'rejected');
      } else {
        // SQLite undoes the failed statement alone and the transaction goes on.
        assert.deepEqual(settled[1], { status: 'fulfilled', value: 'swallowed' });
      }
      assert.deepEqual(await rows(), ['before', 'taken']);
    });
  });
}
