import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { pendingDelivery } from '../../src/commands/record-event.ts';
import { deliveryLogPage } from '../../src/queries/delivery-log.ts';
import {
  applySettlements,
  planSettlement,
  settleAttempt,
  writeSettlements,
} from '../../src/delivery/settle-attempt.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { findDelivery, insertDeliveries } from '../../src/store/repos/webhook-deliveries.ts';
import { insertWebhookEndpoint } from '../../src/store/repos/webhook-endpoints.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { webhookEndpointRow } from '../support/rows.ts';

const NOW = Date.now();
const endpoint = webhookEndpointRow({ id: 'whe_lease', account_id: 'acct_lease', created_at: NOW });

for (const engine of ENGINES) {
  describe(`settling an attempt (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await store.write(async (tx) => {
        await insertAccount(tx.db, {
          id: endpoint.account_id,
          name: 'Lease',
          help_reply: null,
          created_at: NOW,
        });
        await insertWebhookEndpoint(tx.db, endpoint);
      });
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    /** A delivery of a fresh event, claimed with lease `lease` (its locked_until). */
    async function claimedDelivery(eventId: string, lease: number) {
      const delivery = { ...pendingDelivery(eventId, endpoint.id, NOW), locked_until: lease };
      await store.write(async (tx) => {
        await tx.db
          .insertInto('events')
          .values({
            id: eventId,
            account_id: endpoint.account_id,
            mode: 'test',
            type: 'contact.created',
            data: '{}',
            created_at: NOW,
            endpoint_id: null,
          })
          .execute();
        await insertDeliveries(tx.db, [delivery]);
      });
      return delivery;
    }

    const ok = { status: 200, excerpt: 'ok', durationMs: 3 };
    const deps = () => ({ store, clock: systemClock, random: () => 0.5 });

    test('the outcome ends the delivery that still holds the claim’s lease', async () => {
      const delivery = await claimedDelivery('evt_lease_held', NOW + 45_000);
      await settleAttempt(deps(), delivery, endpoint, NOW, ok);
      const row = await findDelivery(store.db, delivery.id);
      assert.equal(row?.status, 'succeeded');
      assert.equal(row?.locked_until, 0);
    });

    test('a delivery re-armed while its attempt ran (retry, recover) stays pending for the new attempt', async () => {
      const delivery = await claimedDelivery('evt_lease_rearmed', NOW + 45_000);
      // What a retry or a recovery does while the attempt is on the wire.
      await store.write((tx) =>
        tx.db
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', attempts: 0, locked_until: 0 })
          .where('id', '=', delivery.id)
          .execute(),
      );
      await settleAttempt(deps(), delivery, endpoint, NOW, ok);
      const row = await findDelivery(store.db, delivery.id);
      assert.equal(row?.status, 'pending');
      assert.equal(row?.attempts, 0);
      const attempts = await store.db
        .selectFrom('webhook_attempts')
        .select('status_code')
        .where('delivery_id', '=', delivery.id)
        .execute();
      assert.deepEqual(
        attempts.map((a) => a.status_code),
        [200],
        'the attempt itself is still logged',
      );
    });

    test('attempts settled together each end only the delivery that still holds its lease, and every one is logged', async () => {
      const held = await claimedDelivery('evt_together_held', NOW + 45_000);
      const failed = await claimedDelivery('evt_together_failed', NOW + 45_000);
      const rearmed = await claimedDelivery('evt_together_rearmed', NOW + 45_000);
      await store.write((tx) =>
        tx.db
          .updateTable('webhook_deliveries')
          .set({ locked_until: 0 })
          .where('id', '=', rearmed.id)
          .execute(),
      );
      // A refused connection: no status, no excerpt (NULLs among the values written together).
      const refused = {
        error: 'refused' as const,
        errorMessage: 'ECONNREFUSED',
        excerpt: null,
        durationMs: 1,
      };
      await store.write((tx) =>
        applySettlements(tx, [
          planSettlement(deps(), held, endpoint, NOW, ok),
          planSettlement(deps(), failed, endpoint, NOW, refused),
          planSettlement(deps(), rearmed, endpoint, NOW, ok),
        ]),
      );
      const rows = await Promise.all(
        [held, failed, rearmed].map((d) => findDelivery(store.db, d.id)),
      );
      assert.deepEqual(
        rows.map((r) => [r?.status, r?.attempts, r?.locked_until, r?.last_error]),
        [
          ['succeeded', 1, 0, null],
          ['pending', 1, 0, 'refused'],
          ['pending', 0, 0, null],
        ],
      );
      assert.ok(rows[1]!.next_attempt_at > NOW, 'the failed attempt is retried later');
      const byDelivery = (a: { delivery_id: string }, b: { delivery_id: string }) =>
        a.delivery_id < b.delivery_id ? -1 : 1;
      const attempts = await store.db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'status_code', 'error', 'response_excerpt'])
        .where('delivery_id', 'in', [held.id, failed.id, rearmed.id])
        .execute();
      assert.deepEqual(
        attempts.sort(byDelivery),
        [
          { delivery_id: held.id, status_code: 200, error: null, response_excerpt: 'ok' },
          {
            delivery_id: failed.id,
            status_code: null,
            error: 'refused: ECONNREFUSED',
            response_excerpt: null,
          },
          { delivery_id: rearmed.id, status_code: 200, error: null, response_excerpt: 'ok' },
        ].sort(byDelivery),
      );
      // The endpoint's run of failures began with the refused attempt.
      const after = await store.db
        .selectFrom('webhook_endpoints')
        .select('failing_since')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.failing_since), NOW);
      await store.write((tx) =>
        tx.db
          .updateTable('webhook_endpoints')
          .set({ failing_since: null })
          .where('id', '=', endpoint.id)
          .execute(),
      );
    });

    test('settlements written together that fail as one are written again one by one: only the one at fault fails', async () => {
      const deliveries = await Promise.all(
        ['evt_split_1', 'evt_split_2', 'evt_split_3'].map((id) =>
          claimedDelivery(id, NOW + 45_000),
        ),
      );
      const plans = deliveries.map((d) => planSettlement(deps(), d, endpoint, NOW, ok));
      // The second reuses the first's attempt id: together they break the primary key.
      plans[1] = { ...plans[1]!, attempt: { ...plans[1]!.attempt, id: plans[0]!.attempt.id } };
      const splits: unknown[] = [];
      const outcomes = await Promise.allSettled(
        writeSettlements(store, plans, (error) => splits.push(error)),
      );
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.equal(splits.length, 1, 'the split is reported once');
      const rows = await Promise.all(deliveries.map((d) => findDelivery(store.db, d.id)));
      assert.deepEqual(
        rows.map((r) => r?.status),
        ['succeeded', 'pending', 'succeeded'],
      );
      assert.equal(rows[1]?.locked_until, NOW + 45_000, 'the one at fault keeps its lease');
    });

    test('settlements commit without waiting for the disk: one lost with the machine is an attempt made again', async () => {
      const asked: (boolean | undefined)[] = [];
      const watched: Store = {
        ...store,
        db: store.db,
        write: (unit, options) => {
          asked.push(options?.durable);
          return store.write(unit, options);
        },
      };
      const deliveries = await Promise.all(
        ['evt_lazy_1', 'evt_lazy_2', 'evt_lazy_3'].map((id) => claimedDelivery(id, NOW + 45_000)),
      );
      const [alone, ...together] = deliveries;
      await settleAttempt({ ...deps(), store: watched }, alone!, endpoint, NOW, ok);
      await Promise.all(
        writeSettlements(
          watched,
          together.map((d) => planSettlement(deps(), d, endpoint, NOW, ok)),
          () => {},
        ),
      );
      assert.deepEqual(asked, [false, false]);
      const rows = await Promise.all(deliveries.map((d) => findDelivery(store.db, d.id)));
      assert.deepEqual(
        rows.map((r) => r?.status),
        ['succeeded', 'succeeded', 'succeeded'],
      );
    });

    test('the delivery log shows a delivery and its attempts as of one moment', async () => {
      const delivery = await claimedDelivery('evt_log_snapshot', NOW + 45_000);
      // The attempt and the delivery's new status commit right after the log's first read.
      let settled = false;
      const settleAfterFirstRead: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          if (!settled) {
            settled = true;
            await settleAttempt(deps(), delivery, endpoint, NOW, ok);
          }
          return args.result;
        },
      };
      const log = await deliveryLogPage(store.db.withPlugin(settleAfterFirstRead), endpoint.id, 50);
      assert.ok(settled);
      const shown = log.data.find((d) => d.id === delivery.id)!;
      assert.deepEqual(
        { status: shown.status, attempts: shown.attempts.length },
        { status: 'pending', attempts: 0 },
        'the log is as of before the attempt, not half of each',
      );
    });
  });
}
