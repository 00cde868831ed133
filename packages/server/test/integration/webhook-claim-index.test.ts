// On PostgreSQL, what a burst of settled deliveries leaves in the due index: a claim must
// mark those entries dead as it passes them, or every later claim walks them again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import {
  claimDeliveries,
  logAttemptsAndSettle,
  type AttemptSettlement,
  type WebhookDeliveryRow,
} from '../../src/store/repos/webhook-deliveries.ts';
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
      store.write((tx) => claimDeliveries(tx.db, now + SETTLED, 64, 30_000, []), {
        durable: false,
      });
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
          deliveries: await claimDeliveries(tx.db, now + 20, 20, 30_000, []),
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

/** Settles each claimed delivery as a success of an attempt at `at`. */
function successes(claimed: WebhookDeliveryRow[], at: number): AttemptSettlement[] {
  return claimed.map((delivery, i) => ({
    attempt: {
      id: `wha_${at}_${i}`,
      delivery_id: delivery.id,
      endpoint_id: delivery.endpoint_id,
      attempted_at: at,
      status_code: 200,
      error: null,
      duration_ms: 3,
      response_excerpt: 'ok',
    },
    lease: delivery.locked_until,
    settlement: {
      status: 'succeeded',
      attempts: delivery.attempts + 1,
      next_attempt_at: delivery.next_attempt_at,
      last_status_code: 200,
      last_error: null,
      updated_at: at,
    },
  }));
}

/** Adds `count` pending deliveries due from `now` on, spread over four endpoints. */
async function addPending(store: Store, from: number, count: number, now: number): Promise<void> {
  await sql`
    insert into webhook_deliveries
      (id, event_id, endpoint_id, status, attempts, next_attempt_at, locked_until, created_at, updated_at)
    select 'whd_' || lpad(i::text, 6, '0'), 'evt_' || i, 'we_' || (i % 4), 'pending', 0,
      ${now}::bigint + i, 0, ${now}::bigint, ${now}::bigint
    from generate_series(${from}::int, ${from + count - 1}::int) as i`.execute(store.db);
}

describe(
  'the webhook lane’s statements on PostgreSQL: planned once',
  { skip: !ENGINES.includes('postgres') },
  () => {
    const opened = inspectableStore();
    const now = Date.UTC(2030, 0, 1);
    const claim = (busy: string[], limit: number) =>
      opened.store.write((tx) => claimDeliveries(tx.db, now + 10_000, limit, 30_000, busy), {
        durable: false,
      });
    const settle = (claimed: WebhookDeliveryRow[], at: number) =>
      opened.store.write((tx) => logAttemptsAndSettle(tx.db, successes(claimed, at)), {
        durable: false,
      });

    test('a batch of settlements finds each delivery by its key, though its plan was made when the table was nearly empty', async () => {
      const { store } = opened;
      // The lane's first batch meets a table of two rows: the plan made for it is kept for
      // the connection's life, and a plan by cost alone would read that table whole.
      await addPending(store, 1, 2, now);
      await settle(await claim([], 2), now + 1);
      await addPending(store, 3, 5000, now);
      const claimed = await claim([], 40);
      assert.equal(claimed.length, 40);
      const scans = await store.write(
        async (tx) => {
          await logAttemptsAndSettle(tx.db, successes(claimed, now + 2));
          const { rows } = await sql<{ seq_scan: string; idx_scan: string }>`
            select seq_scan, idx_scan from pg_stat_xact_user_tables
            where relname = 'webhook_deliveries'`.execute(tx.db);
          return rows[0]!;
        },
        { durable: false },
      );
      assert.equal(Number(scans.seq_scan), 0, 'the table read from end to end');
      assert.ok(Number(scans.idx_scan) >= 40, 'each delivery found by its key');
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from webhook_deliveries where status = 'succeeded'`.execute(store.db);
      assert.equal(Number(rows[0]!.n), 42);
    });

    test('a claim and a batch of settlements are each prepared once and run on one plan, whatever the lists', async () => {
      /** The lane connection's claim and batch settlement: how often each ran on which plan. */
      const plans = () =>
        opened.store.write(
          async (tx) => {
            const { rows } = await sql<{
              statement: string;
              generic_plans: string;
              custom_plans: string;
            }>`select statement, generic_plans, custom_plans from pg_prepared_statements`.execute(
              tx.db,
            );
            const of = (pattern: RegExp) => {
              const found = rows.filter((r) => pattern.test(r.statement));
              assert.equal(found.length, 1, `one statement matching ${pattern}`);
              return {
                generic: Number(found[0]!.generic_plans),
                custom: Number(found[0]!.custom_plans),
              };
            };
            return { claim: of(/set "locked_until" = \$1/), settlement: of(/from unnest/) };
          },
          { durable: false },
        );
      const before = await plans();
      // Busy endpoints of every count, and batches of every length, run the same two statements.
      await settle(await claim(['we_1'], 5), now + 3);
      await settle(await claim(['we_1', 'we_2', 'we_3'], 7), now + 4);
      await settle(await claim([], 20), now + 5);
      const after = await plans();
      assert.deepEqual(after, {
        claim: { generic: before.claim.generic + 3, custom: 0 },
        settlement: { generic: before.settlement.generic + 3, custom: 0 },
      });
    });

    test('the plan settings end with the transaction', async () => {
      await claim([], 1);
      const settings = await opened.store.write(
        async (tx) =>
          (
            await sql<Record<string, string>>`
              select current_setting('plan_cache_mode') as plan_cache_mode,
                current_setting('enable_seqscan') as enable_seqscan,
                current_setting('enable_bitmapscan') as enable_bitmapscan,
                current_setting('enable_hashjoin') as enable_hashjoin`.execute(tx.db)
          ).rows[0]!,
      );
      assert.deepEqual(settings, {
        plan_cache_mode: 'auto',
        enable_seqscan: 'on',
        enable_bitmapscan: 'on',
        enable_hashjoin: 'on',
      });
    });
  },
);
