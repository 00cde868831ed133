// On PostgreSQL, what a burst of settled deliveries leaves in the due index: a claim must
// mark those entries dead as it passes them, or every later claim walks them again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { claimDeliveries } from '../../src/store/repos/webhook-deliveries.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

const DUE_INDEX = 'webhook_deliveries_due_endpoint';
const SETTLED = 2000;

/**
 * A store on a new PostgreSQL database with pageinspect (bt_page_items, heap_page_items:
 * what a page holds, with the flags scans and updates set), for the enclosing describe.
 */
function inspectableStore(): { store: Store } {
  let database: TestDatabase;
  const opened = {} as { store: Store };
  before(async () => {
    database = await createTestDatabase('postgres');
    opened.store = await openStore(database.options);
    await sql`create extension if not exists pageinspect`.execute(opened.store.db);
  });
  after(async () => {
    await opened.store.close();
    await database.drop();
  });
  return opened;
}

describe('webhook claims on PostgreSQL', { skip: !ENGINES.includes('postgres') }, () => {
  const opened = inspectableStore();
  let store: Store;
  before(async () => {
    store = opened.store;
    // VACUUM would remove the dead entries itself; autovacuum must not come by mid-test.
    await sql`alter table webhook_deliveries set (autovacuum_enabled = false)`.execute(store.db);
  });

  /** Entries of the due index marked dead (LP_DEAD), which later scans skip. */
  async function deadEntries(): Promise<number> {
    const { rows } = await sql<{ n: string }>`
      select count(*) filter (where dead) as n
      from generate_series(1, (pg_relation_size(${DUE_INDEX}) / 8192)::int - 1) as page,
        lateral bt_page_items(${DUE_INDEX}, page)`.execute(store.db);
    return Number(rows[0]!.n);
  }

  test('a claim marks the due-index entries of settled deliveries dead, so the next claim skips them', async () => {
    const now = Date.UTC(2030, 0, 1);
    // A burst, as the worker leaves it: every delivery was pending, then settled. The table
    // was never analyzed (autovacuum comes a minute or more after a burst), as in production.
    await sql`
      insert into webhook_deliveries
        (id, event_id, endpoint_id, status, attempts, next_attempt_at, locked_until, created_at, updated_at)
      select 'whd_' || i, 'evt_' || i, 'we_1', 'pending', 0, ${now}::bigint + i, 0, ${now}::bigint, ${now}::bigint
      from generate_series(1, ${SETTLED}) as i`.execute(store.db);
    await sql`update webhook_deliveries set status = 'succeeded', attempts = 1`.execute(store.db);
    assert.equal(await deadEntries(), 0);

    const claim = () =>
      store.write(
        (tx) => claimDeliveries(tx.db, store.capabilities, now + SETTLED, 64, 30_000, []),
        { durable: false },
      );
    assert.deepEqual(await claim(), []);
    // The claim walked the pending range, found each entry's row settled, and said so. An
    // entry is marked only once no transaction of the server may still see its row's old
    // version, and a connection other tests open meanwhile can hold that moment back: then
    // a later claim, which walks the entries again, marks them (a bitmap scan never would).
    for (let i = 0; i < 20 && (await deadEntries()) < SETTLED * 0.9; i++) {
      await sleep(50);
      assert.deepEqual(await claim(), []);
    }
    assert.ok((await deadEntries()) >= SETTLED * 0.9, `${await deadEntries()} entries marked dead`);
  });

  test('plain index scans end with the claim’s transaction', async () => {
    await store.write((tx) => claimDeliveries(tx.db, store.capabilities, 0, 1, 1, []));
    // The next transaction of the same lane, on the same connection.
    const setting = await store.write(async (tx) => {
      const { rows } = await sql<{ setting: string }>`
        select current_setting('enable_bitmapscan') as setting`.execute(tx.db);
      return rows[0]!.setting;
    });
    assert.equal(setting, 'on');
  });
});

describe(
  'webhook deliveries on PostgreSQL: room for claims',
  { skip: !ENGINES.includes('postgres') },
  () => {
    const opened = inspectableStore();
    let store: Store;
    before(() => {
      store = opened.store;
    });

    test("a claim's update of rows inserted in a burst is heap-only: their pages have room for it", async () => {
      const now = Date.UTC(2030, 0, 1);
      // A burst of a thousand, packed as inserts pack them; the first twenty are due first.
      await sql`
      insert into webhook_deliveries
        (id, event_id, endpoint_id, status, attempts, next_attempt_at, locked_until, created_at, updated_at)
      select 'whd_' || lpad(i::text, 4, '0'), 'evt_' || i, 'we_1', 'pending', 0, ${now}::bigint + i, 0,
        ${now}::bigint, ${now}::bigint
      from generate_series(1, 1000) as i`.execute(store.db);
      const { deliveries } = await store.write(
        async (tx) => ({
          deliveries: await claimDeliveries(tx.db, store.capabilities, now + 20, 20, 30_000, []),
        }),
        { durable: false },
      );
      assert.equal(deliveries.length, 20);
      // HEAP_HOT_UPDATED: the row's next version is in the same page, and no index moved.
      const { rows } = await sql<{ hot: string }>`
      select count(*) filter (where (t_infomask2 & 16384) <> 0) as hot
      from heap_page_items(get_raw_page('webhook_deliveries', 0))`.execute(store.db);
      assert.equal(Number(rows[0]!.hot), 20, 'every claimed row of the first page');
    });
  },
);
