import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../../sdk/src/webhooks/verify.ts';
import { listEvents } from '../../src/store/repos/events.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { phoneNumbers, waitFor } from '../support/messaging.ts';
import {
  makeTestCertificate,
  startHttpsReceiver,
  startReceiver,
  type ReceivedRequest,
  type Receiver,
  type TestCertificate,
} from '../support/receiver.ts';
import {
  ALL_EVENT_TYPES,
  createEndpoint,
  deliveriesOf,
  waitForDelivery,
} from '../support/webhooks.ts';
import { scoped } from '../../src/store/scope.ts';

const INVALID_NUMBER = '+15005550001';

/** The deliveries stored for an endpoint, whatever their state. */
async function storedDeliveries(t: TestApp, endpointId: string) {
  return t.store.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .execute();
}

/** Expects `fn` to throw the SDK's verification error with this reason. */
async function rejectsWith(fn: () => Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    assert.equal(error.reason, reason);
    return true;
  });
}

/** The `t` and single `v1` of an `X-Service-Signature` value. */
function serviceSignature(request: ReceivedRequest): { t: string; v1: string } {
  const header = String(request.headers['x-service-signature']);
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  assert.ok(match, `X-Service-Signature is t=<unix>,v1=<hex>: ${header}`);
  return { t: match[1]!, v1: match[2]! };
}

/** The Standard Webhooks headers of a request, as `standardwebhooks` takes them. */
function standardHeaders(request: ReceivedRequest): Record<string, string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

for (const engine of ENGINES) {
  describe(`webhook delivery over HTTPS [${engine}]`, () => {
    let certificate: TestCertificate;
    let receiver: Receiver;
    let t: TestApp;
    let a: TestAccount;
    let b: TestAccount;
    const phone = phoneNumbers('415');

    before(async () => {
      certificate = makeTestCertificate();
      receiver = await startReceiver({ tls: certificate });
      t = await startTestApp(engine, {
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1', SWITCHBOARD_SANDBOX_DELAY_MS: '10' },
        webhookCa: certificate.cert,
      });
      a = await t.newAccount('Account A');
      b = await t.newAccount('Account B');
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** Waits for `count` deliveries at `path` and returns their parsed envelopes. */
    async function envelopes(path: string, count: number): Promise<any[]> {
      const requests = await receiver.waitFor(path, count);
      return requests.map((r) => JSON.parse(r.text));
    }

    test('each of the six event types reaches the endpoints subscribed to it, and only those', async () => {
      const all = await createEndpoint(a.test, `${receiver.url}/types/all`);
      const only = new Map<string, string>();
      for (const type of ALL_EVENT_TYPES) {
        only.set(type, (await createEndpoint(a.test, `${receiver.url}/types/${type}`, [type])).id);
      }
      const from = a.testNumbers[0]!;

      const contact = await a.test.post('/v1/contacts', { phone: phone(), name: 'Grace' });
      assert.equal(contact.status, 201, contact.text);
      const delivered = await a.test.post('/v1/messages', { from, to: phone(), body: 'hi' });
      assert.equal(delivered.status, 201, delivered.text);
      const failed = await a.test.post('/v1/messages', { from, to: INVALID_NUMBER, body: 'hi' });
      assert.equal(failed.status, 201, failed.text);
      const inbound = await a.test.post('/v1/sandbox/inbound', {
        from: phone(),
        to: from,
        body: 'hello there',
      });
      assert.equal(inbound.status, 201, inbound.text);
      const completed = await a.test.post('/v1/sandbox/calls', {
        from: phone(),
        to: from,
        outcome: 'completed',
        duration: 42,
      });
      assert.equal(completed.status, 201, completed.text);
      const missed = await a.test.post('/v1/sandbox/calls', {
        from: phone(),
        to: from,
        outcome: 'missed',
      });
      assert.equal(missed.status, 201, missed.text);

      const received = await envelopes('/types/all', 6);
      const byType = new Map(received.map((e) => [e.type, e]));
      assert.deepEqual([...byType.keys()].sort(), [...ALL_EVENT_TYPES].sort());
      assert.equal(byType.get('contact.created').data.id, contact.body.id);
      assert.equal(byType.get('message.delivered').data.id, delivered.body.id);
      assert.equal(byType.get('message.delivered').data.status, 'delivered');
      assert.equal(byType.get('message.failed').data.id, failed.body.id);
      assert.equal(byType.get('message.failed').data.status, 'failed');
      assert.ok(byType.get('message.failed').data.failureReason, 'a failure reason code');
      assert.equal(byType.get('message.received').data.id, inbound.body.id);
      assert.equal(byType.get('message.received').data.direction, 'inbound');
      assert.equal(byType.get('message.received').data.conversationId, inbound.body.conversationId);
      assert.equal(byType.get('call.completed').data.id, completed.body.id);
      assert.equal(byType.get('call.completed').data.status, 'completed');
      assert.equal(byType.get('call.missed').data.id, missed.body.id);
      assert.equal(byType.get('call.missed').data.status, 'missed');

      for (const type of ALL_EVENT_TYPES) {
        const [event] = await envelopes(`/types/${type}`, 1);
        assert.equal(event.type, type);
        // The same event as the catch-all endpoint got: one evt_ id per event, not per endpoint.
        assert.equal(event.id, byType.get(type).id);
      }
      // Deliveries are fanned out in the event's own transaction: a stray one would exist by now.
      for (const type of ALL_EVENT_TYPES) {
        const path = `/types/${type}`;
        assert.equal(receiver.at(path).length, 1, `${path} got only its own type`);
        const stored = await storedDeliveries(t, only.get(type)!);
        assert.equal(stored.length, 1, `${path}: one delivery row`);
      }
      assert.equal(receiver.at('/types/all').length, 6, 'one delivery per event');
      assert.equal((await storedDeliveries(t, all.id)).length, 6);
    });

    test('an event reaches only endpoints of its own account and mode', async () => {
      const aTest = await createEndpoint(a.test, `${receiver.url}/scope/a-test`);
      const aLive = await createEndpoint(a.live, `${receiver.url}/scope/a-live`);
      const bTest = await createEndpoint(b.test, `${receiver.url}/scope/b-test`);

      const ofATest = await a.test.post('/v1/contacts', { phone: phone(), name: 'A test' });
      const [first] = await envelopes('/scope/a-test', 1);
      assert.equal(first.data.id, ofATest.body.id);
      assert.equal(receiver.at('/scope/a-live').length, 0, 'no live endpoint gets a test event');
      assert.equal(receiver.at('/scope/b-test').length, 0, 'no other account gets it');
      assert.equal((await storedDeliveries(t, aLive.id)).length, 0);
      assert.equal((await storedDeliveries(t, bTest.id)).length, 0);

      // The other endpoints work: each gets its own account's and mode's events.
      const ofALive = await a.live.post('/v1/contacts', { phone: phone(), name: 'A live' });
      const ofBTest = await b.test.post('/v1/contacts', { phone: phone(), name: 'B test' });
      const [live] = await envelopes('/scope/a-live', 1);
      const [other] = await envelopes('/scope/b-test', 1);
      assert.equal(live.data.id, ofALive.body.id);
      assert.equal(other.data.id, ofBTest.body.id);
      await waitForDelivery(b.test, bTest.id, (d) => d.status === 'succeeded', 'settled');
      await waitForDelivery(a.live, aLive.id, (d) => d.status === 'succeeded', 'settled');
      assert.equal(receiver.at('/scope/a-test').length, 1, 'A test saw only its own event');
      assert.equal((await storedDeliveries(t, aTest.id)).length, 1);
      assert.equal(receiver.at('/scope/a-live').length, 1);
      assert.equal(receiver.at('/scope/b-test').length, 1);
    });

    test('a disabled or deleted endpoint gets no delivery', async () => {
      const live = await createEndpoint(a.test, `${receiver.url}/off/sentinel`, [
        'contact.created',
      ]);
      const disabled = await createEndpoint(a.test, `${receiver.url}/off/disabled`, [
        'contact.created',
      ]);
      const deleted = await createEndpoint(a.test, `${receiver.url}/off/deleted`, [
        'contact.created',
      ]);
      await a.test.post(`/v1/webhook_endpoints/${disabled.id}`, { enabled: false });
      await a.test.request('DELETE', `/v1/webhook_endpoints/${deleted.id}`);
      await a.test.post('/v1/contacts', { phone: phone() });
      await receiver.waitFor('/off/sentinel', 1);
      await waitForDelivery(a.test, live.id, (d) => d.status === 'succeeded', 'settled');
      assert.equal(receiver.at('/off/disabled').length, 0);
      assert.equal(receiver.at('/off/deleted').length, 0);
      assert.equal((await storedDeliveries(t, disabled.id)).length, 0);
      assert.equal((await storedDeliveries(t, deleted.id)).length, 0);
    });

    test('a delivery is a POST of the envelope {id: evt_…, type, createdAt, data} with the documented headers', async () => {
      await createEndpoint(a.test, `${receiver.url}/envelope`, ['contact.created']);
      const contact = await a.test.post('/v1/contacts', {
        phone: phone(),
        name: 'Zoë “quoted” ✓',
        email: 'zoe@example.com',
      });
      const [request] = await receiver.waitFor('/envelope', 1);
      assert.equal(request!.method, 'POST');
      const event = JSON.parse(request!.text);
      assert.deepEqual(Object.keys(event).sort(), ['createdAt', 'data', 'id', 'type']);
      assert.match(event.id, /^evt_[0-9A-Za-z]{22}$/);
      assert.equal(event.type, 'contact.created');
      assert.match(event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(event.data, contact.body);
      // The id is the outbox event's, the key receivers deduplicate on.
      const stored = await listEvents(
        scoped(t.store.db, { accountId: a.accountId, mode: 'test' }),
        'contact.created',
      );
      const mine = stored.find((e) => JSON.parse(e.data).id === contact.body.id);
      assert.equal(event.id, mine?.id);

      const h = request!.headers;
      assert.equal(h['content-type'], 'application/json');
      assert.match(String(h['user-agent']), /^Switchboard-Webhooks\/\d/);
      assert.equal(h['webhook-id'], event.id);
      const { t: ts } = serviceSignature(request!);
      assert.equal(h['webhook-timestamp'], ts, 'both schemes sign the same timestamp');
      assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 60, 'the timestamp is unix seconds');
      assert.match(String(h['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.equal(Number(h['content-length']), request!.raw.length);
    });

    test('the signature verifies over the raw bytes with the SDK, a plain HMAC and standardwebhooks', async () => {
      const endpoint = await createEndpoint(a.test, `${receiver.url}/signed`, ['contact.created']);
      // Non-ASCII text makes the body's bytes differ from its UTF-16 length.
      await a.test.post('/v1/contacts', { phone: phone(), name: 'Søren Ångström 東京' });
      const [request] = await receiver.waitFor('/signed', 1);
      const raw = request!.raw;

      const event = await verifyWebhook(
        raw,
        String(request!.headers['x-service-signature']),
        endpoint.secret,
      );
      assert.deepEqual(event, JSON.parse(raw.toString('utf8')));

      // HMAC-SHA256 keyed with the UTF-8 of the whole secret (whsec_ included) over `${t}.${raw}`.
      const { t: ts, v1 } = serviceSignature(request!);
      const expected = createHmac('sha256', Buffer.from(endpoint.secret, 'utf8'))
        .update(`${ts}.`)
        .update(raw)
        .digest();
      assert.ok(timingSafeEqual(expected, Buffer.from(v1, 'hex')), 'independent HMAC matches');

      const standard = new Webhook(endpoint.secret.slice('whsec_'.length));
      assert.deepEqual(standard.verify(raw, standardHeaders(request!)), event);
    });

    test('a tampered body, a wrong secret and a stale timestamp are rejected', async () => {
      const endpoint = await createEndpoint(a.test, `${receiver.url}/tamper`, ['contact.created']);
      await a.test.post('/v1/contacts', { phone: phone(), name: 'Mallory' });
      const [request] = await receiver.waitFor('/tamper', 1);
      const raw = request!.raw;
      const header = String(request!.headers['x-service-signature']);
      const { t: ts } = serviceSignature(request!);

      const tampered = Buffer.from(raw.toString('utf8').replace('Mallory', 'Mallorx'));
      assert.notDeepEqual(tampered, raw);
      await rejectsWith(
        () => verifyWebhook(tampered, header, endpoint.secret),
        'no_matching_signature',
      );
      // The same JSON serialized differently is different bytes: verification is over what was sent.
      const reserialized = JSON.stringify(JSON.parse(raw.toString('utf8')), null, 2);
      await rejectsWith(
        () => verifyWebhook(reserialized, header, endpoint.secret),
        'no_matching_signature',
      );
      const other = await createEndpoint(a.test, `${receiver.url}/unused`, ['call.missed']);
      await rejectsWith(() => verifyWebhook(raw, header, other.secret), 'no_matching_signature');
      assert.throws(() =>
        new Webhook(endpoint.secret.slice('whsec_'.length)).verify(
          tampered,
          standardHeaders(request!),
        ),
      );

      const sent = Number(ts) * 1000;
      await rejectsWith(
        () => verifyWebhook(raw, header, endpoint.secret, { now: new Date(sent + 301_000) }),
        'timestamp_outside_tolerance',
      );
      await rejectsWith(
        () => verifyWebhook(raw, header, endpoint.secret, { now: new Date(sent - 301_000) }),
        'timestamp_outside_tolerance',
      );
      // 300 s of skew is allowed either way.
      await verifyWebhook(raw, header, endpoint.secret, { now: new Date(sent + 299_000) });
      await verifyWebhook(raw, header, endpoint.secret, { now: new Date(sent - 299_000) });
    });

    test('an HTTPS endpoint whose certificate is not trusted gets no delivery: a tls failure is logged', async () => {
      // Its own fresh certificate, which the app was not told to trust.
      const untrusted = await startHttpsReceiver();
      try {
        const endpoint = await createEndpoint(a.test, `${untrusted.url}/tls`, ['contact.created']);
        await a.test.post('/v1/contacts', { phone: phone() });
        const delivery = await waitForDelivery(
          a.test,
          endpoint.id,
          (d) => d.attempts.length >= 1,
          'a first attempt',
        );
        assert.equal(delivery.attempts[0].statusCode, null);
        assert.match(delivery.attempts[0].error, /^tls: /);
        assert.equal(delivery.status, 'pending', 'retried later');
        assert.equal(untrusted.at('/tls').length, 0, 'no request over an unverified connection');
        await a.test.request('DELETE', `/v1/webhook_endpoints/${endpoint.id}`);
      } finally {
        await untrusted.close();
      }
    });
  });

  describe(`a slow endpoint does not hold up the others [${engine}]`, () => {
    const HANG_MS = 2_500;
    const EVENTS = 12;
    let slow: Receiver;
    let healthy: Receiver;
    let t: TestApp;
    let acct: TestAccount;

    before(async () => {
      slow = await startReceiver();
      healthy = await startReceiver();
      slow.on('/slow', { delayMs: HANG_MS });
      t = await startTestApp(engine, { env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' } });
      acct = await t.newAccount();
    });
    after(async () => {
      await t.close();
      await slow.close();
      await healthy.close();
    });

    test(`while endpoint A hangs ${HANG_MS} ms on every request, endpoint B gets all its events at once`, async () => {
      const a = await createEndpoint(acct.test, `${slow.url}/slow`, ['contact.created']);
      await createEndpoint(acct.test, `${healthy.url}/healthy`, ['contact.created']);
      const phone = phoneNumbers('503');
      const started = Date.now();
      for (let i = 0; i < EVENTS; i++) {
        const res = await acct.test.post('/v1/contacts', { phone: phone() });
        assert.equal(res.status, 201);
      }
      await healthy.waitFor('/healthy', EVENTS, { timeoutMs: HANG_MS - 500, intervalMs: 10 });
      const elapsed = Date.now() - started;
      assert.ok(elapsed < HANG_MS, `B done in ${elapsed} ms, before A's first answer`);
      // A is being attempted meanwhile, at most 10 at a time, and none has finished.
      const inFlight = slow.at('/slow').length;
      assert.ok(inFlight >= 1 && inFlight <= 10, `${inFlight} attempts in flight to A`);
      const log = await deliveriesOf(acct.test, a.id);
      assert.equal(
        log.filter((d) => d.attempts.length > 0).length,
        0,
        'no attempt of A settled yet',
      );
      // A still gets everything once it answers.
      await waitFor(
        async () => {
          const settled = (await deliveriesOf(acct.test, a.id)).filter(
            (d) => d.status === 'succeeded',
          );
          return settled.length === EVENTS ? settled : undefined;
        },
        'every delivery to A succeeded',
        { timeoutMs: 4 * HANG_MS + 2_000, intervalMs: 50 },
      );
      assert.equal(new Set(slow.at('/slow').map((r) => r.headers['webhook-id'])).size, EVENTS);
    });
  });
}
