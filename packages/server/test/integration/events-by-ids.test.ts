// The webhook worker reads the events of each claim by their ids (findEventsByIds).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { findEventsByIds, insertEvent, type EventRow } from '../../src/store/repos/events.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

const NOW = Date.UTC(2026, 0, 1);
const STORED = 300;

function eventRow(i: number): EventRow {
  return {
    id: `evt_byids${String(i).padStart(5, '0')}`,
    account_id: 'acct_by_ids',
    mode: 'test',
    type: 'message.received',
    data: JSON.stringify({ n: i, text: `it's "quoted", {braced} and \\ escaped` }),
    created_at: NOW + i,
    endpoint_id: null,
  };
}

for (const engine of ENGINES) {
  describe(`events read by their ids (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    const stored = Array.from({ length: STORED }, (_, i) => eventRow(i));

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await store.write(async (tx) => {
        for (const row of stored) await insertEvent(tx.db, row);
      });
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    test('a list of any length gives each stored event it names once, whole, and skips ids never stored', async () => {
      for (const length of [1, 2, 64, STORED]) {
        const wanted = stored.slice(0, length);
        const ids = [...wanted.map((e) => e.id), 'evt_never_stored'];
        const found = await findEventsByIds(store.db, ids);
        assert.deepEqual(
          found.sort((a, b) => a.id.localeCompare(b.id)),
          wanted,
          `a list of ${length}`,
        );
      }
      assert.deepEqual(await findEventsByIds(store.db, []), []);
    });

    test(
      'on PostgreSQL, the read is planned for its list at each call, never prepared by name',
      {
        skip: engine !== 'postgres',
      },
      async () => {
        // A generic plan made while the table was a page or two would be a sequential scan,
        // kept on that connection for good as the table grows.
        const prepared = await store.write(async (tx) => {
          for (let i = 0; i < 8; i++) await findEventsByIds(tx.db, [stored[i]!.id]);
          const { rows } = await sql<{
            statement: string;
          }>`select statement from pg_prepared_statements`.execute(tx.db);
          return rows.map((r) => r.statement);
        });
        assert.deepEqual(
          prepared.filter((s) => s.includes('from "events"')),
          [],
        );
      },
    );
  });
}
