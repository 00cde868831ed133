import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/lib/ids.ts';
import type { EventRow } from '../../src/store/repos/events.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { createEndpoint } from '../support/webhooks.ts';

/**
 * More events than the engine binds parameters in one statement: 32 766 on SQLite,
 * 65 535 on PostgreSQL.
 */
const MANY = { sqlite: 33_001, postgres: 65_536 } as const;

for (const engine of ENGINES) {
  describe(`webhook recovery of many events [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;

    before(async () => {
      // No worker: the recovered deliveries stay as the recovery left them.
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
    });
    after(() => t.close());

    /**
     * Writes `count` contact.created events of the test account, three per
     * millisecond from `since` (as a burst's), in one statement made by the database.
     */
    async function insertEventBurst(count: number, since: number): Promise<void> {
      await t.store.write(async (tx) => {
        await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${count - 1})
insert into events (id, account_id, mode, type, data, created_at, endpoint_id)
select 'evt_burst' || cast(1000000 + i as text), ${acct.accountId}, 'test', 'contact.created', '{}',
  cast(${since} as bigint) + i / 3, null
from n`.execute(tx.db);
      });
    }

    async function deliveryCounts(endpointId: string) {
      const rows = await t.store.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('endpoint_id', '=', endpointId)
        .groupBy(['status', 'attempts'])
        .execute();
      return rows.map((r) => ({ status: r.status, attempts: r.attempts, n: Number(r.n) }));
    }

    test('recover re-sends more events than one statement can bind, each exactly once', async () => {
      const many = MANY[engine];
      const endpoint = await createEndpoint(acct.test, 'http://127.0.0.1:9/hooks', [
        'contact.created',
      ]);
      const since = Date.now() - 60_000;
      await insertEventBurst(many, since);
      const event = (fields: Partial<EventRow>): EventRow => ({
        id: newId('evt', since + 10),
        account_id: acct.accountId,
        mode: 'test',
        type: 'contact.created',
        data: '{}',
        created_at: since + 10,
        endpoint_id: null,
        ...fields,
      });
      await t.store.write(async (tx) => {
        // None of these is the endpoint's to recover.
        await tx.db
          .insertInto('events')
          .values([
            event({ created_at: since - 1 }),
            event({ type: 'call.missed' }),
            event({ mode: 'live' }),
            event({ endpoint_id: 'we_someone_elses_test' }),
          ])
          .execute();
        // Some had a delivery here already, settled long ago: re-armed, not doubled.
        const settled = await tx.db
          .selectFrom('events')
          .select('id')
          .where('id', 'like', 'evt_burst%')
          .orderBy('id')
          .limit(500)
          .execute();
        await tx.db
          .insertInto('webhook_deliveries')
          .values(
            settled.map((e) => ({
              id: newId('whd', since),
              event_id: e.id,
              endpoint_id: endpoint.id,
              status: 'succeeded',
              attempts: 1,
              next_attempt_at: since,
              locked_until: 0,
              last_status_code: 200,
              last_error: null,
              created_at: since,
              updated_at: since,
            })),
          )
          .execute();
      });

      const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/recover`, {
        since: new Date(since).toISOString(),
      });
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(res.body, { object: 'recovery', count: many });
      assert.deepEqual(await deliveryCounts(endpoint.id), [
        { status: 'pending', attempts: 0, n: many },
      ]);
      const delivered = await t.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.count<number | string>('event_id').distinct().as('n'))
        .where('endpoint_id', '=', endpoint.id)
        .where('event_id', 'like', 'evt_burst%')
        .executeTakeFirstOrThrow();
      assert.equal(Number(delivered.n), many, 'one delivery per event of the burst');
    });
  });
}
