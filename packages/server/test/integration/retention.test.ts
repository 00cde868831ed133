import assert from 'node:assert/strict';
import { claimInboundRef } from '../../src/store/repos/inbound-refs.ts';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../src/commands/idempotency.ts';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { insertCall } from '../../src/store/repos/calls.ts';
import { insertContact } from '../../src/store/repos/contacts.ts';
import { insertMessage } from '../../src/store/repos/messages.ts';
import { insertWebhookEndpoint } from '../../src/store/repos/webhook-endpoints.ts';
import { startBackground } from '../../src/workers/background.ts';
import { RetentionSweep } from '../../src/workers/retention-sweep.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { waitFor } from '../support/messaging.ts';
import {
  DAY_MS,
  present,
  presentKeys,
  presentSessions,
  writeEvent,
  writeIdempotencyKey,
  writeSession,
} from '../support/retention.ts';
import { outboundMessageRow, webhookEndpointRow } from '../support/rows.ts';

/** The time the app and every sweep of these tests run at. */
const NOW = Date.UTC(2031, 0, 15, 12);
const clock = { now: () => NOW };
const RETENTION = 30 * DAY_MS;

for (const engine of ENGINES) {
  describe(`retention sweep [${engine}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(engine, { clock, background: false });
    });
    after(async () => {
      await t.close();
    });

    /** One whole sweep at NOW, as the worker runs it. */
    function sweep(options: { retentionDays?: number; batchRows?: number } = {}) {
      return new RetentionSweep({
        store: t.store,
        clock,
        logger: createLogger('silent'),
        retentionDays: options.retentionDays ?? 30,
        ...(options.batchRows ? { batchRows: options.batchRows } : {}),
      }).sweep();
    }

    /** A new account with `count` webhook endpoints (written as rows: no receiver needed). */
    async function accountWithEndpoints(
      count = 1,
    ): Promise<{ acct: TestAccount; endpoints: string[] }> {
      const acct = await t.newAccount();
      const endpoints = Array.from({ length: count }, () => newId('whe', NOW));
      await t.store.write(async (tx) => {
        for (const id of endpoints) {
          await insertWebhookEndpoint(
            tx.db,
            webhookEndpointRow({ id, account_id: acct.accountId, created_at: NOW }),
          );
        }
      });
      return { acct, endpoints };
    }

    test('idempotency records are removed once 24 h old; younger ones stay and still replay', async () => {
      const acct = await t.newAccount();
      const first = await acct.test.post(
        '/v1/contacts',
        { phone: '+14155550123' },
        { 'Idempotency-Key': 'fresh' },
      );
      assert.equal(first.status, 201, first.text);
      await writeIdempotencyKey(t.store, acct.accountId, 'expired', NOW - IDEMPOTENCY_WINDOW_MS);
      await writeIdempotencyKey(t.store, acct.accountId, 'young', NOW - IDEMPOTENCY_WINDOW_MS + 1);

      const counts = await sweep();

      assert.equal(counts.idempotencyKeys, 1);
      assert.deepEqual(
        await presentKeys(t.store.db, acct.accountId, ['expired', 'fresh', 'young']),
        ['fresh', 'young'],
      );
      const replay = await acct.test.post(
        '/v1/contacts',
        { phone: '+14155550123' },
        { 'Idempotency-Key': 'fresh' },
      );
      assert.equal(replay.status, 201, replay.text);
      assert.equal(replay.body.id, first.body.id, 'the first answer, replayed');
    });

    test('expired sessions are removed; unexpired ones stay', async () => {
      const acct = await t.newAccount();
      await writeSession(t.store, acct.accountId, `${acct.accountId}-expired`, NOW);
      await writeSession(t.store, acct.accountId, `${acct.accountId}-open`, NOW + 1);

      const counts = await sweep();

      assert.equal(counts.sessions, 1);
      assert.deepEqual(
        await presentSessions(t.store.db, [`${acct.accountId}-expired`, `${acct.accountId}-open`]),
        [`${acct.accountId}-open`],
      );
    });

    test('events past the retention period go with their deliveries and attempts; younger ones stay', async () => {
      const { acct, endpoints } = await accountWithEndpoints();
      const [endpointId] = endpoints as [string];
      const old = await writeEvent(t.store, acct.accountId, NOW - RETENTION, [
        { endpointId, status: 'succeeded' },
      ]);
      const young = await writeEvent(t.store, acct.accountId, NOW - RETENTION + 1, [
        { endpointId, status: 'failed' },
      ]);

      const counts = await sweep();

      assert.equal(counts.events, 1);
      const { db } = t.store;
      assert.deepEqual(await present(db, 'events', [old.eventId, young.eventId]), [young.eventId]);
      assert.deepEqual(
        await present(db, 'webhook_deliveries', [...old.deliveryIds, ...young.deliveryIds]),
        young.deliveryIds,
      );
      assert.deepEqual(
        await present(db, 'webhook_attempts', [...old.attemptIds, ...young.attemptIds]),
        [...young.attemptIds].sort(),
      );

      // The APIs that read events answer as if the old one had never been.
      const log = await acct.test.get(`/v1/webhook_endpoints/${endpointId}/deliveries`);
      assert.equal(log.status, 200, log.text);
      assert.deepEqual(
        log.body.data.map((d: any) => [d.id, d.eventId, d.eventType, d.attempts.length]),
        [[young.deliveryIds[0], young.eventId, 'contact.created', 2]],
      );
      const after = await acct.test.get(
        `/v1/webhook_endpoints/${endpointId}/deliveries?starting_after=${young.deliveryIds[0]}`,
      );
      assert.equal(after.status, 200, after.text);
      assert.deepEqual(after.body.data, []);
      const retry = await acct.test.post(
        `/v1/webhook_endpoints/${endpointId}/deliveries/${old.deliveryIds[0]}/retry`,
      );
      assert.equal(retry.status, 404, retry.text);
      assert.equal(retry.body.error.type, 'not_found');
      const recovered = await acct.test.post(`/v1/webhook_endpoints/${endpointId}/recover`, {
        since: new Date(NOW - 2 * RETENTION).toISOString(),
      });
      assert.equal(recovered.status, 202, recovered.text);
      assert.equal(recovered.body.count, 1, 'only the young event is there to recover');
      assert.deepEqual(await present(db, 'events', [old.eventId]), []);
    });

    test('an old event with a delivery still pending or retrying stays, attempts and all', async () => {
      const { acct, endpoints } = await accountWithEndpoints(2);
      const [done, retrying] = endpoints as [string, string];
      const old = await writeEvent(t.store, acct.accountId, NOW - 2 * RETENTION, [
        { endpointId: done, status: 'failed' },
        { endpointId: retrying, status: 'pending' },
      ]);

      const counts = await sweep();

      assert.equal(counts.events, 0);
      const { db } = t.store;
      assert.deepEqual(await present(db, 'events', [old.eventId]), [old.eventId]);
      assert.deepEqual(
        await present(db, 'webhook_deliveries', old.deliveryIds),
        [...old.deliveryIds].sort(),
      );
      assert.deepEqual(
        await present(db, 'webhook_attempts', old.attemptIds),
        [...old.attemptIds].sort(),
      );
      const log = await acct.test.get(`/v1/webhook_endpoints/${retrying}/deliveries`);
      assert.deepEqual(
        log.body.data.map((d: any) => [d.eventId, d.status]),
        [[old.eventId, 'pending']],
      );
    });

    test('messages, contacts and calls are kept however old', async () => {
      const acct = await t.newAccount();
      const at = NOW - 100 * 365 * DAY_MS;
      const messageId = newId('msg', at);
      const contactId = newId('ct', at);
      const callId = newId('call', at);
      await t.store.write(async (tx) => {
        await insertMessage(
          tx.db,
          outboundMessageRow(
            { id: messageId, account_id: acct.accountId, status: 'delivered', created_at: at },
            '+14155550124',
          ),
        );
        await insertContact(tx.db, {
          id: contactId,
          account_id: acct.accountId,
          mode: 'test',
          name: 'Old',
          phone: '+14155550124',
          email: null,
          company: null,
          created_at: at,
          updated_at: null,
        });
        await insertCall(tx.db, {
          id: callId,
          account_id: acct.accountId,
          mode: 'test',
          from_phone: '+14155550124',
          to_phone: acct.testNumbers[0]!,
          direction: 'inbound',
          status: 'missed',
          started_at: at,
          duration: 0,
          contact_id: contactId,
          created_at: at,
        });
      });

      await sweep({ retentionDays: 1 });

      const { db } = t.store;
      const messages = await db.selectFrom('messages').select('id').where('id', '=', messageId);
      assert.equal((await messages.execute()).length, 1, 'the message');
      const contacts = await db.selectFrom('contacts').select('id').where('id', '=', contactId);
      assert.equal((await contacts.execute()).length, 1, 'the contact');
      const calls = await db.selectFrom('calls').select('id').where('id', '=', callId);
      assert.equal((await calls.execute()).length, 1, 'the call');
    });

    test('a sweep over more rows than one batch removes them all, past the events it keeps', async () => {
      const { acct, endpoints } = await accountWithEndpoints();
      const [endpointId] = endpoints as [string];
      const at = NOW - 2 * RETENTION;
      // Kept events first: they fill whole batches at the front of the range.
      const kept = [];
      for (let i = 0; i < 6; i++) {
        kept.push(
          (await writeEvent(t.store, acct.accountId, at, [{ endpointId, status: 'pending' }]))
            .eventId,
        );
      }
      const gone = [];
      const keys = [];
      const sessions = [];
      for (let i = 0; i < 12; i++) {
        gone.push(
          (await writeEvent(t.store, acct.accountId, at + i, [{ endpointId, status: 'failed' }]))
            .eventId,
        );
        keys.push(`many-${i}`);
        await writeIdempotencyKey(t.store, acct.accountId, `many-${i}`, at + i);
        sessions.push(`${acct.accountId}-many-${i}`);
        await writeSession(t.store, acct.accountId, `${acct.accountId}-many-${i}`, at + i);
        await t.store.write((tx) => claimInboundRef(tx.db, `car_x/SM${i}`, `msg_${i}`, at + i));
      }
      await t.store.write((tx) => claimInboundRef(tx.db, 'car_x/SMrecent', 'msg_recent', NOW));

      const counts = await sweep({ batchRows: 5 });

      assert.deepEqual(counts, {
        idempotencyKeys: 12,
        sessions: 12,
        events: 12,
        media: 0,
        inboundRefs: 12,
      });
      const { db } = t.store;
      assert.deepEqual(await present(db, 'events', [...kept, ...gone]), kept.sort());
      assert.deepEqual(await presentKeys(db, acct.accountId, keys), []);
      assert.deepEqual(await presentSessions(db, sessions), []);
      const refs = await db.selectFrom('inbound_refs').select('ref').execute();
      assert.deepEqual(
        refs.map((r) => r.ref),
        ['car_x/SMrecent'],
        'a provider id within the period is kept',
      );
    });
  });

  describe(`the worker's retention sweep [${engine}]`, () => {
    test('SWITCHBOARD_RETENTION_DAYS sets the period; the worker sweeps at start and then every interval', async () => {
      const t = await startTestApp(engine, {
        clock,
        background: false,
        env: { SWITCHBOARD_RETENTION_DAYS: '2' },
      });
      const acct = await t.newAccount();
      const endpointId = newId('whe', NOW);
      await t.store.write((tx) =>
        insertWebhookEndpoint(
          tx.db,
          webhookEndpointRow({ id: endpointId, account_id: acct.accountId, created_at: NOW }),
        ),
      );
      const write = (at: number) =>
        writeEvent(t.store, acct.accountId, at, [{ endpointId, status: 'succeeded' }]);
      const old = await write(NOW - 2 * DAY_MS);
      const young = await write(NOW - 2 * DAY_MS + 1);
      const background = await startBackground({
        config: t.config,
        store: t.store,
        clock,
        logger: createLogger('silent'),
        secrets: t.secrets,
        retentionIntervalMs: 50,
      });
      try {
        const gone = (id: string) => async () =>
          (await present(t.store.db, 'events', [id])).length === 0 ? true : undefined;
        await waitFor(gone(old.eventId), 'the sweep at start');
        assert.deepEqual(await present(t.store.db, 'events', [young.eventId]), [young.eventId]);
        const later = await write(NOW - 3 * DAY_MS);
        await waitFor(gone(later.eventId), 'a sweep one interval later');
        assert.deepEqual(await present(t.store.db, 'events', [young.eventId]), [young.eventId]);
      } finally {
        await background.stop();
        await t.close();
      }
    });
  });
}

describe('SWITCHBOARD_RETENTION_DAYS', () => {
  test('defaults to 30 days; a value that is not a whole number of days from 1 is refused', () => {
    assert.equal(loadConfig({}).retentionDays, 30);
    assert.equal(loadConfig({ SWITCHBOARD_RETENTION_DAYS: '7' }).retentionDays, 7);
    for (const bad of ['0', '-1', '1.5', 'week']) {
      assert.throws(
        () => loadConfig({ SWITCHBOARD_RETENTION_DAYS: bad }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.some((p) => p.startsWith('SWITCHBOARD_RETENTION_DAYS')),
        bad,
      );
    }
  });
});
