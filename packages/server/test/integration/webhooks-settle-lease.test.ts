import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { pendingDelivery } from '../../src/commands/record-event.ts';
import { loadDeliveryLog } from '../../src/commands/webhooks/delivery-log.ts';
import { settleAttempt } from '../../src/delivery/settle-attempt.ts';
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
      const log = await loadDeliveryLog(store.db.withPlugin(settleAfterFirstRead), endpoint.id, 50);
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
