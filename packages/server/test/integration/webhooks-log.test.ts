import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from '../../../sdk/src/webhooks/verify.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { phoneNumbers, waitFor } from '../support/messaging.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { createEndpoint, deliveriesOf, waitForDelivery } from '../support/webhooks.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`webhook delivery log and redelivery [${engine}]`, () => {
    let receiver: Receiver;
    let t: TestApp;
    let acct: TestAccount;
    const phone = phoneNumbers('206');

    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(engine, { env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' } });
      acct = await t.newAccount();
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** Creates a contact and returns its id. */
    async function contact(): Promise<string> {
      const res = await acct.test.post('/v1/contacts', { phone: phone() });
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    }

    test('every attempt is logged with attemptedAt, statusCode, durationMs and a response excerpt of at most 1024 bytes', async () => {
      const big = 'A'.repeat(100_000);
      receiver.on('/log', (_request, index) =>
        index === 0 ? { status: 500, body: big } : { status: 200, body: 'thanks' },
      );
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/log`, ['contact.created']);
      const started = Date.now();
      await contact();
      const first = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.attempts.length === 1,
        'the first attempt',
      );
      assert.match(first.id, /^whd_/);
      assert.equal(first.object, 'webhook_delivery');
      assert.equal(first.endpointId, endpoint.id);
      assert.match(first.eventId, /^evt_/);
      assert.equal(first.eventType, 'contact.created');
      assert.equal(first.status, 'pending', 'a 500 is retried');
      assert.equal(first.attemptCount, 1);
      assert.equal(first.lastStatusCode, 500);
      assert.match(first.nextAttemptAt, ISO);
      const [attempt] = first.attempts;
      assert.match(attempt.attemptedAt, ISO);
      const at = Date.parse(attempt.attemptedAt);
      assert.ok(at >= started - 1000 && at <= Date.now(), 'attemptedAt is when it happened');
      assert.equal(attempt.statusCode, 500);
      assert.equal(attempt.error, null);
      assert.ok(Number.isInteger(attempt.durationMs) && attempt.durationMs >= 0);
      assert.equal(attempt.responseBodyExcerpt, big.slice(0, 1024), 'the first 1024 bytes');

      const retried = await acct.test.post(
        `/v1/webhook_endpoints/${endpoint.id}/deliveries/${first.id}/retry`,
      );
      assert.equal(retried.status, 202, retried.text);
      assert.equal(retried.body.id, first.id);
      const done = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.status === 'succeeded',
        'success after the retry',
      );
      assert.deepEqual(
        done.attempts.map((a: any) => [a.statusCode, a.responseBodyExcerpt]),
        [
          [500, big.slice(0, 1024)],
          [200, 'thanks'],
        ],
        'both attempts, oldest first',
      );
      assert.ok(Date.parse(done.attempts[1].attemptedAt) >= at);
      assert.equal(done.nextAttemptAt, null, 'nothing scheduled once succeeded');
      assert.equal(done.lastStatusCode, 200);
      const ids = receiver.at('/log').map((r) => JSON.parse(r.text).id);
      assert.deepEqual(ids, [first.eventId, first.eventId], 'the same evt_ id both times');
    });

    test('the response excerpt stays within 1024 bytes when the cut falls inside a UTF-8 character', async () => {
      // '€' is three bytes: 1024 bytes end one byte into the 342nd character.
      const euros = '€'.repeat(2_000);
      receiver.on('/euro', { status: 200, body: euros });
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/euro`, ['contact.created']);
      await contact();
      const delivery = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.attempts.length === 1,
        'an attempt',
      );
      const excerpt: string = delivery.attempts[0].responseBodyExcerpt;
      assert.ok(Buffer.byteLength(excerpt) <= 1024, `${Buffer.byteLength(excerpt)} bytes`);
      assert.ok(euros.startsWith(excerpt), 'a prefix of the body, with no replacement character');
      assert.equal(excerpt.length, 341);
    });

    test('a response body with NUL bytes is still logged, and the delivery settles', async () => {
      receiver.on('/nul', { status: 200, body: Buffer.from('ok\u0000\u0001done', 'utf8') });
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/nul`, ['contact.created']);
      await contact();
      const delivery = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.status === 'succeeded',
        'success',
        { timeoutMs: 3_000, intervalMs: 20 },
      );
      assert.equal(delivery.attempts.length, 1);
      assert.match(delivery.attempts[0].responseBodyExcerpt, /^ok.*done$/s);
      assert.equal(receiver.at('/nul').length, 1, 'delivered once, not again and again');
    });

    test('GET …/deliveries pages newest first with limit, starting_after and hasMore', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/pages`, [
        'contact.created',
      ]);
      for (let i = 0; i < 5; i++) await contact();
      await receiver.waitFor('/pages', 5);
      const all = await waitFor(async () => {
        const log = await deliveriesOf(acct.test, endpoint.id);
        return log.length === 5 && log.every((d) => d.status === 'succeeded') ? log : undefined;
      }, 'five settled deliveries');
      const ids = all.map((d) => d.id);
      assert.deepEqual(ids, [...ids].sort().reverse(), 'newest (highest id) first');
      const seen: string[] = [];
      const hasMore: boolean[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const query = `?limit=2${cursor ? `&starting_after=${cursor}` : ''}`;
        const res = await acct.test.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries${query}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.object, 'list');
        seen.push(...res.body.data.map((d: any) => d.id));
        hasMore.push(res.body.hasMore);
        if (!res.body.hasMore) break;
        cursor = res.body.data.at(-1).id;
      }
      assert.deepEqual(hasMore, [true, true, false]);
      assert.deepEqual(seen, ids);
    });

    test('POST …/deliveries/{id}/retry sends a succeeded delivery again with the same evt_ id', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/again`, [
        'contact.created',
      ]);
      const contactId = await contact();
      const delivery = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.status === 'succeeded',
        'success',
      );
      const res = await acct.test.post(
        `/v1/webhook_endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`,
      );
      assert.equal(res.status, 202, res.text);
      const [firstTime, secondTime] = await receiver.waitFor('/again', 2);
      assert.equal(firstTime!.text, secondTime!.text, 'the same payload, byte for byte');
      assert.equal(secondTime!.headers['webhook-id'], delivery.eventId);
      const event = await verifyWebhook(
        secondTime!.raw,
        String(secondTime!.headers['x-service-signature']),
        endpoint.secret,
      );
      assert.equal(event.id, delivery.eventId);
      assert.equal((event.data as any).id, contactId);
      const after = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.attempts.length === 2 && d.status === 'succeeded',
        'two attempts',
      );
      assert.equal(after.id, delivery.id, 'the same delivery, one more attempt');
    });

    test('retrying an unknown delivery, or one of another endpoint, is 404', async () => {
      const mine = await createEndpoint(acct.test, `${receiver.url}/retry-a`, ['contact.created']);
      const other = await createEndpoint(acct.test, `${receiver.url}/retry-b`, ['contact.created']);
      await contact();
      const theirs = await waitForDelivery(acct.test, other.id, () => true, 'a delivery');
      const wrong = await acct.test.post(
        `/v1/webhook_endpoints/${mine.id}/deliveries/${theirs.id}/retry`,
      );
      assert.equal(wrong.status, 404);
      assert.equal(wrong.body.error.type, 'not_found');
      const unknown = await acct.test.post(
        `/v1/webhook_endpoints/${mine.id}/deliveries/whd_doesnotexist/retry`,
      );
      assert.equal(unknown.status, 404);
    });

    test('POST …/recover {since} redelivers every subscribed event since then, and no other', async () => {
      const earlier = await contact();
      await sleep(5);
      const since = new Date().toISOString();
      await sleep(5);
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/recover`, [
        'contact.created',
      ]);
      const later = [await contact(), await contact()];
      // An event after `since` of a type the endpoint does not subscribe to.
      await acct.test.post('/v1/sandbox/calls', {
        from: phone(),
        to: acct.testNumbers[0],
        outcome: 'missed',
      });
      const firstRound = await receiver.waitFor('/recover', 2);
      const delivered = firstRound.map((r) => JSON.parse(r.text));
      assert.deepEqual(delivered.map((e) => e.data.id).sort(), [...later].sort());
      await waitFor(async () => {
        const log = await deliveriesOf(acct.test, endpoint.id);
        return log.every((d) => d.status === 'succeeded') ? log : undefined;
      }, 'first deliveries settled');

      const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/recover`, { since });
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(res.body, { object: 'recovery', count: 2 });
      const all = await receiver.waitFor('/recover', 4);
      const again = all.slice(2).map((r) => JSON.parse(r.text));
      assert.deepEqual(
        again.map((e) => e.id).sort(),
        delivered.map((e) => e.id).sort(),
        'the same evt_ ids',
      );
      assert.ok(again.every((e) => e.type === 'contact.created'));
      assert.ok(!again.some((e) => e.data.id === earlier), 'nothing from before since');

      // From further back it includes events from before the endpoint existed.
      const longAgo = new Date(Date.now() - 60_000).toISOString();
      const wider = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/recover`, {
        since: longAgo,
      });
      assert.equal(wider.status, 202);
      assert.ok(wider.body.count >= 3, `count ${wider.body.count}`);
      const widerRound = await receiver.waitFor('/recover', 4 + wider.body.count);
      assert.ok(
        widerRound.slice(4).some((r) => JSON.parse(r.text).data.id === earlier),
        'the earlier contact this time',
      );
      await sleep(100);
      assert.equal(receiver.at('/recover').length, 4 + wider.body.count, 'no extra delivery');
    });

    test('recover with a future or malformed since is 422 param since', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/recover-bad`, [
        'contact.created',
      ]);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      for (const since of [future, 'yesterday']) {
        const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/recover`, {
          since,
        });
        assert.equal(res.status, 422, since);
        assert.equal(res.body.error.param, 'since');
      }
    });

    test('POST …/test sends a signed test event of the chosen type to that endpoint only', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/test-event`, [
        'contact.created',
      ]);
      const bystander = await createEndpoint(acct.test, `${receiver.url}/bystander`, [
        'call.missed',
      ]);
      const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/test`, {
        type: 'call.missed',
      });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.object, 'webhook_delivery');
      assert.equal(res.body.endpointId, endpoint.id);
      assert.equal(res.body.eventType, 'call.missed');
      assert.match(res.body.eventId, /^evt_/);
      const [request] = await receiver.waitFor('/test-event', 1);
      const event = await verifyWebhook(
        request!.raw,
        String(request!.headers['x-service-signature']),
        endpoint.secret,
      );
      assert.equal(event.id, res.body.eventId);
      assert.equal(event.type, 'call.missed');
      assert.equal((event.data as any).status, 'missed');
      assert.equal(request!.headers['webhook-id'], res.body.eventId);
      const settled = await waitForDelivery(
        acct.test,
        endpoint.id,
        (d) => d.id === res.body.id && d.status === 'succeeded',
        'the test delivery succeeded',
      );
      assert.equal(settled.attempts.length, 1);
      assert.equal(receiver.at('/bystander').length, 0);
      assert.equal((await deliveriesOf(acct.test, bystander.id)).length, 0);
    });

    test('a test event without a type is a message.received; an unknown type is 422 param type', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/test-default`, [
        'contact.created',
      ]);
      const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/test`, {});
      assert.equal(res.status, 202, res.text);
      const [request] = await receiver.waitFor('/test-default', 1);
      assert.equal(JSON.parse(request!.text).type, 'message.received');
      const bad = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/test`, {
        type: 'message.sent',
      });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error.type, 'validation_error');
      assert.equal(bad.body.error.param, 'type');
    });

    test('test events are not replayed by recover', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/test-recover`, [
        'message.received',
      ]);
      const since = new Date(Date.now() - 1000).toISOString();
      await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/test`, {
        type: 'message.received',
      });
      await receiver.waitFor('/test-recover', 1);
      const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/recover`, { since });
      assert.equal(res.status, 202);
      assert.equal(res.body.count, 0);
    });
  });
}
