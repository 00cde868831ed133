import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { addNumber } from '../../src/commands/add-number.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf, phoneNumbers, waitFor, waitForStatus } from '../support/messaging.ts';

const INVALID_NUMBER = '+15005550001';
const CARRIER_REJECTED = '+15005550002';
const NEVER_DELIVERED = '+15005550003';

/** The sandbox delay of the fast app; waits below are multiples of it. */
const DELAY_MS = 20;

for (const engine of ENGINES) {
  describe(`message status progression, slow sandbox [${engine}]`, () => {
    const SLOW_DELAY_MS = 300;
    let t: TestApp;
    let acct: TestAccount;
    const phone = phoneNumbers('617');

    before(async () => {
      t = await startTestApp(engine, {
        env: { SWITCHBOARD_SANDBOX_DELAY_MS: String(SLOW_DELAY_MS) },
      });
      acct = await t.newAccount();
    });
    after(() => t.close());

    test('GET /v1/messages/{id} shows queued, then sent, then delivered, in that order', async () => {
      const sent = await acct.test.post('/v1/messages', {
        from: acct.testNumbers[0],
        to: phone(),
        body: 'watch me',
      });
      assert.equal(sent.status, 201);
      assert.equal(sent.body.status, 'queued');
      const seen: string[] = ['queued'];
      const started = Date.now();
      // Polled every 20 ms: each step takes 300 ms, so every state is seen many times.
      await waitFor(
        async () => {
          const res = await acct.test.get(`/v1/messages/${sent.body.id}`);
          assert.equal(res.status, 200);
          if (seen.at(-1) !== res.body.status) seen.push(res.body.status);
          return res.body.status === 'delivered' ? res.body : undefined;
        },
        'delivered',
        { timeoutMs: 10_000, intervalMs: 20 },
      );
      assert.deepEqual(seen, ['queued', 'sent', 'delivered']);
      assert.ok(
        Date.now() - started >= SLOW_DELAY_MS * 2 - 50,
        'delivered no sooner than two sandbox delays',
      );
      const final = await acct.test.get(`/v1/messages/${sent.body.id}`);
      assert.equal(final.body.failureReason, null);
      // Everything but the status is what the send answered.
      assert.deepEqual({ ...final.body, status: 'queued' }, sent.body);
    });
  });

  describe(`message status and events [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let from: string;
    const phone = phoneNumbers('646');

    before(async () => {
      t = await startTestApp(engine, { env: { SWITCHBOARD_SANDBOX_DELAY_MS: String(DELAY_MS) } });
      acct = await t.newAccount();
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());

    async function send(to: string | string[], body = 'status test'): Promise<any> {
      const res = await acct.test.post('/v1/messages', { from, to, body });
      assert.equal(res.status, 201, res.text);
      return res.body;
    }

    async function eventsFor(type: string, messageId: string) {
      return (await eventsOf(t.store.db, acct.accountId, 'test', type)).filter(
        (e) => e.data.id === messageId,
      );
    }

    test('an ordinary number reaches delivered', async () => {
      const m = await send(phone());
      const done = await waitForStatus(acct.test, m.id, ['delivered', 'failed']);
      assert.equal(done.status, 'delivered');
      assert.equal(done.failureReason, null);
    });

    test('+15005550001 fails with failureReason invalid_number', async () => {
      const m = await send(INVALID_NUMBER);
      const done = await waitForStatus(acct.test, m.id, ['delivered', 'failed']);
      assert.equal(done.status, 'failed');
      assert.equal(done.failureReason, 'invalid_number');
    });

    test('+15005550002 fails with failureReason carrier_rejected', async () => {
      const m = await send(CARRIER_REJECTED);
      const done = await waitForStatus(acct.test, m.id, ['delivered', 'failed']);
      assert.equal(done.status, 'failed');
      assert.equal(done.failureReason, 'carrier_rejected');
    });

    test('+15005550003 reaches sent and stays sent, never delivered', async () => {
      const m = await send(NEVER_DELIVERED);
      await waitForStatus(acct.test, m.id, 'sent');
      await sleep(DELAY_MS * 15);
      const later = await acct.test.get(`/v1/messages/${m.id}`);
      assert.equal(later.body.status, 'sent');
      assert.equal(later.body.failureReason, null);
      assert.deepEqual(await eventsFor('message.delivered', m.id), []);
      assert.deepEqual(await eventsFor('message.failed', m.id), []);
    });

    test('a delivered one-to-one message records exactly one message.delivered, even later', async () => {
      const m = await send(phone());
      await waitForStatus(acct.test, m.id, 'delivered');
      const first = await eventsFor('message.delivered', m.id);
      assert.equal(first.length, 1);
      assert.match(first[0]!.id, /^evt_/);
      assert.equal(first[0]!.data.status, 'delivered');
      assert.equal(first[0]!.data.to, m.to);
      assert.equal(first[0]!.data.from, from);
      assert.equal(first[0]!.data.conversationId, m.conversationId);
      // Ten more sandbox delays: no late or duplicate receipt adds another event.
      await sleep(DELAY_MS * 10);
      assert.equal((await eventsFor('message.delivered', m.id)).length, 1);
      assert.deepEqual(await eventsFor('message.failed', m.id), []);
    });

    test('message.failed is recorded once and carries failureReason', async () => {
      for (const [to, reason] of [
        [INVALID_NUMBER, 'invalid_number'],
        [CARRIER_REJECTED, 'carrier_rejected'],
      ] as const) {
        const m = await send(to);
        await waitForStatus(acct.test, m.id, 'failed');
        await sleep(DELAY_MS * 5);
        const failed = await eventsFor('message.failed', m.id);
        assert.equal(failed.length, 1, to);
        assert.equal(failed[0]!.data.status, 'failed');
        assert.equal(failed[0]!.data.failureReason, reason);
        assert.equal(failed[0]!.data.to, to);
        assert.deepEqual(await eventsFor('message.delivered', m.id), []);
      }
    });

    test('a group records one delivery event per participant, with conversationId and that participant in to', async () => {
      const a = phone();
      const b = phone();
      const m = await send([a, b, INVALID_NUMBER], 'group status');
      await waitFor(async () => {
        const delivered = await eventsFor('message.delivered', m.id);
        const failed = await eventsFor('message.failed', m.id);
        return delivered.length >= 2 && failed.length >= 1 ? true : undefined;
      }, 'three participant events');
      await sleep(DELAY_MS * 10);
      const delivered = await eventsFor('message.delivered', m.id);
      const failed = await eventsFor('message.failed', m.id);
      assert.deepEqual(delivered.map((e) => e.data.to).toSorted(), [a, b].toSorted());
      for (const e of delivered) {
        assert.equal(e.data.conversationId, m.conversationId);
        assert.equal(e.data.status, 'delivered');
        assert.equal(e.data.failureReason, null);
      }
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.data.to, INVALID_NUMBER);
      assert.equal(failed[0]!.data.conversationId, m.conversationId);
      assert.equal(failed[0]!.data.status, 'failed');
      assert.equal(failed[0]!.data.failureReason, 'invalid_number');
    });

    test("another account's message is 404", async () => {
      const m = await send(phone());
      const other = await t.newAccount('Other');
      const res = await other.test.get(`/v1/messages/${m.id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found');
    });

    test('a test-mode message is 404 to the live key of the same account', async () => {
      const m = await send(phone());
      const res = await acct.live.get(`/v1/messages/${m.id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found');
      assert.equal((await acct.test.get(`/v1/messages/${m.id}`)).status, 200);
    });

    test('an unknown message id is 404', async () => {
      const res = await acct.test.get('/v1/messages/msg_doesnotexist');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found');
    });

    test('without a live carrier, a live send fails as unreachable and records message.failed in live mode', async () => {
      const liveNumber = '+16465559876';
      await t.store.write((tx) =>
        addNumber(
          tx,
          { accountId: acct.accountId, mode: 'live', phone: liveNumber },
          { clock: { now: () => Date.now() } },
        ),
      );
      const res = await acct.live.post('/v1/messages', {
        from: liveNumber,
        to: phone(),
        body: 'live',
      });
      assert.equal(res.status, 201, res.text);
      const done = await waitForStatus(acct.live, res.body.id, ['delivered', 'failed']);
      assert.equal(done.status, 'failed');
      assert.equal(done.failureReason, 'unreachable');
      const live = (await eventsOf(t.store.db, acct.accountId, 'live', 'message.failed')).filter(
        (e) => e.data.id === res.body.id,
      );
      assert.equal(live.length, 1);
      assert.equal(live[0]!.data.failureReason, 'unreachable');
      const test = (await eventsOf(t.store.db, acct.accountId, 'test')).filter(
        (e) => e.data.id === res.body.id,
      );
      assert.deepEqual(test, [], 'live events stay out of test mode');
    });
  });
}
