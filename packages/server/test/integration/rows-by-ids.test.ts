// Workers read whole batches of rows by their ids: the webhook worker a claim's events
// (findEventsByIds), the carrier dispatcher a round's messages (findMessagesByIds).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { findEventsByIds, insertEvent, type EventRow } from '../../src/store/repos/events.ts';
import { findMessagesByIds, insertMessage } from '../../src/store/repos/messages.ts';
import type { DB } from '../../src/store/schema.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { outboundMessageRow } from '../support/rows.ts';

/**
 * The text of every query pg clients of this process send while `recording` is set.
 * Installed before any store opens: connections keep the `query` they were made with.
 */
const sent: string[] = [];
let recording = false;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text] = args;
  if (recording) {
    sent.push(typeof text === 'string' ? text : ((text as { text?: string }).text ?? '?'));
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

const NOW = Date.UTC(2026, 0, 1);
const STORED = 300;
const TEXT = `it's "quoted", {braced} and \\ escaped`;

/** A table's rows read by id: how one is made and stored, and the read under test. */
interface ByIds {
  table: 'events' | 'messages';
  row(i: number): { id: string };
  insert(db: Kysely<DB>, row: never): Promise<void>;
  read(db: Kysely<DB>, ids: string[]): Promise<{ id: string }[]>;
}

const READS: ByIds[] = [
  {
    table: 'events',
    row: (i): EventRow => ({
      id: `evt_byids${String(i).padStart(5, '0')}`,
      account_id: 'acct_by_ids',
      mode: 'test',
      type: 'message.received',
      data: JSON.stringify({ n: i, text: TEXT }),
      created_at: NOW + i,
      endpoint_id: null,
    }),
    insert: insertEvent,
    read: findEventsByIds,
  },
  {
    table: 'messages',
    row: (i) =>
      outboundMessageRow(
        {
          id: `msg_byids${String(i).padStart(5, '0')}`,
          account_id: 'acct_by_ids',
          status: 'queued',
          created_at: NOW + i,
          body: `${TEXT} ${i}`,
        },
        '+14155550100',
      ),
    insert: insertMessage,
    read: findMessagesByIds,
  },
];

for (const engine of ENGINES) {
  for (const { table, row, insert, read } of READS) {
    describe(`${table} read by their ids (${engine})`, () => {
      let database: TestDatabase;
      let store: Store;
      const stored = Array.from({ length: STORED }, (_, i) => row(i));

      before(async () => {
        database = await createTestDatabase(engine);
        store = await openStore(database.options);
        await store.write(async (tx) => {
          for (const r of stored) await insert(tx.db, r as never);
        });
      });
      after(async () => {
        await store.close();
        await database.drop();
      });

      test('a list of any length gives each stored row it names once, whole, and skips ids never stored', async () => {
        for (const length of [1, 2, 64, STORED]) {
          const wanted = stored.slice(0, length);
          const ids = [...wanted.map((r) => r.id), `${table}_never_stored`];
          const found = await store.write((tx) => read(tx.db, ids));
          assert.deepEqual(
            found.sort((a, b) => a.id.localeCompare(b.id)),
            wanted,
            `a list of ${length}`,
          );
        }
        assert.deepEqual(await read(store.db, []), []);
      });

      test(
        'on PostgreSQL, a read is one statement whatever the length of its list, planned for its list at each call, never prepared by name',
        { skip: engine !== 'postgres' },
        async () => {
          // A generic plan made while the table was a page or two would be a sequential
          // scan, kept on that connection for good as the table grows.
          sent.length = 0;
          recording = true;
          const prepared = await store
            .write(async (tx) => {
              for (let i = 1; i <= 8; i++) {
                await read(
                  tx.db,
                  stored.slice(0, i).map((r) => r.id),
                );
              }
              const { rows } = await sql<{
                statement: string;
              }>`select statement from pg_prepared_statements`.execute(tx.db);
              return rows.map((r) => r.statement);
            })
            .finally(() => (recording = false));
          const reads = new Set(sent.filter((text) => text.includes(`from "${table}"`)));
          assert.deepEqual([...reads].length, 1, [...reads].join('\n'));
          assert.match([...reads][0]!, /= any\(\$1::text\[\]\)/);
          assert.deepEqual(
            prepared.filter((s) => s.includes(`from "${table}"`)),
            [],
          );
        },
      );
    });
  }
}
