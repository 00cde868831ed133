// Webhook endpoints through the client against the real server, on every storage engine: the
// whole lifecycle, with deliveries to a local receiver verified by the endpoint's secret.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NotFoundError, Switchboard, ValidationError, verifyWebhook } from '../src/index.ts';
import { ISO_UTC, phoneNumbers, rejectsWith } from './support/client-assertions.ts';
import { eventually, startReceiver, type Receiver } from './support/http-doubles.ts';
import { ENGINES, startTestApp, type TestApp } from './support/server.ts';

for (const engine of ENGINES) {
  describe(`Switchboard client: webhook endpoints [${engine}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    const phone = phoneNumbers('917');

    before(async () => {
      t = await startTestApp(engine, { env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' } });
      receiver = await startReceiver();
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** A client for a fresh account, so counts and lists see only this test's endpoints. */
    async function freshClient() {
      const acct = await t.newAccount('SDK webhooks');
      return { acct, client: new Switchboard(acct.testKey, { baseUrl: `${t.url}/v1` }) };
    }

    /** The deliveries the receiver got at `path`, bounded wait for `count`. */
    async function deliveriesAt(path: string, count: number) {
      return eventually(async () => {
        const hits = receiver.requests.filter((r) => r.url === path);
        return hits.length >= count ? hits : undefined;
      }, `${count} deliveries at ${path}`);
    }

    test('create returns the endpoint with its whsec_ secret; retrieve omits the secret', async () => {
      const { client } = await freshClient();
      const url = `${receiver.url}/create`;
      const endpoint = await client.webhookEndpoints.create({
        url,
        events: ['message.received', 'contact.created'],
        description: 'CRM sync',
      });
      assert.match(endpoint.id, /^whe_/);
      assert.equal(endpoint.object, 'webhook_endpoint');
      assert.equal(endpoint.url, url);
      assert.deepEqual(endpoint.events, ['message.received', 'contact.created']);
      assert.equal(endpoint.enabled, true);
      assert.equal(endpoint.description, 'CRM sync');
      assert.equal(endpoint.disabledReason, null);
      assert.match(endpoint.createdAt, ISO_UTC);
      assert.match(endpoint.secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
      const { secret: _secret, ...withoutSecret } = endpoint;
      assert.deepEqual(await client.webhookEndpoints.retrieve(endpoint.id), withoutSecret);
    });

    test('an event type outside the catalog is ValidationError with param events', async () => {
      const { client } = await freshClient();
      const error = await rejectsWith(
        client.webhookEndpoints.create({
          url: `${receiver.url}/bad`,
          events: ['message.sent' as 'message.received'],
        }),
        ValidationError,
        422,
        'validation_error',
      );
      assert.match(error.param ?? '', /^events/);
    });

    test('list pages with limit and startingAfter until hasMore is false', async () => {
      const { client } = await freshClient();
      const made = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const e = await client.webhookEndpoints.create({
          url: `${receiver.url}/list-${i}`,
          events: ['call.missed'],
        });
        made.add(e.id);
      }
      const seen: string[] = [];
      let startingAfter: string | undefined;
      for (let page = 0; page < 3; page++) {
        const result = await client.webhookEndpoints.list({ limit: 1, startingAfter });
        assert.equal(result.object, 'list');
        assert.equal(result.data.length, 1);
        assert.equal(result.data[0]!.secret, undefined, 'lists never carry secrets');
        seen.push(result.data[0]!.id);
        assert.equal(result.hasMore, page < 2);
        startingAfter = result.data[0]!.id;
      }
      assert.deepEqual(new Set(seen), made);
      const all = await client.webhookEndpoints.list();
      assert.equal(all.data.length, 3);
      assert.equal(all.hasMore, false);
    });

    test('update changes only the fields given', async () => {
      const { client } = await freshClient();
      const endpoint = await client.webhookEndpoints.create({
        url: `${receiver.url}/update`,
        events: ['call.missed'],
        description: 'before',
      });
      const updated = await client.webhookEndpoints.update(endpoint.id, {
        events: ['call.missed', 'call.completed'],
        enabled: false,
      });
      assert.deepEqual(updated.events, ['call.missed', 'call.completed']);
      assert.equal(updated.enabled, false);
      assert.equal(updated.description, 'before');
      assert.equal(updated.url, endpoint.url);
      const cleared = await client.webhookEndpoints.update(endpoint.id, { description: null });
      assert.equal(cleared.description, null);
      assert.equal(cleared.enabled, false);
    });

    test('sendTestEvent delivers a sample event the endpoint secret verifies', async () => {
      const { client } = await freshClient();
      const path = '/test-event';
      const endpoint = await client.webhookEndpoints.create({
        url: receiver.url + path,
        events: ['call.missed'],
      });
      const delivery = await client.webhookEndpoints.sendTestEvent(endpoint.id, {
        type: 'call.missed',
      });
      assert.match(delivery.id, /^whd_/);
      assert.equal(delivery.object, 'webhook_delivery');
      assert.equal(delivery.endpointId, endpoint.id);
      assert.equal(delivery.eventType, 'call.missed');
      assert.match(delivery.eventId, /^evt_/);
      const [hit] = await deliveriesAt(path, 1);
      const event = await verifyWebhook(
        hit!.body,
        hit!.headers['x-service-signature'] as string,
        endpoint.secret!,
      );
      assert.equal(event.id, delivery.eventId);
      assert.equal(event.type, 'call.missed');
    });

    test('sendTestEvent without a type imitates message.received', async () => {
      const { client } = await freshClient();
      const endpoint = await client.webhookEndpoints.create({
        url: `${receiver.url}/test-default`,
        events: ['message.received'],
      });
      const delivery = await client.webhookEndpoints.sendTestEvent(endpoint.id);
      assert.equal(delivery.eventType, 'message.received');
    });

    test('listDeliveries shows each delivery with its attempts; retryDelivery sends the same event again', async () => {
      const { client } = await freshClient();
      const path = '/retry';
      const endpoint = await client.webhookEndpoints.create({
        url: receiver.url + path,
        events: ['contact.created'],
      });
      const sent = await client.webhookEndpoints.sendTestEvent(endpoint.id, {
        type: 'contact.created',
      });
      const logged = await eventually(async () => {
        const page = await client.webhookEndpoints.listDeliveries(endpoint.id);
        const d = page.data.find((x) => x.id === sent.id);
        return d?.status === 'succeeded' ? d : undefined;
      }, 'the delivery to succeed');
      assert.equal(logged.attemptCount, 1);
      assert.equal(logged.lastStatusCode, 200);
      assert.equal(logged.attempts.length, 1);
      assert.equal(logged.attempts[0]!.statusCode, 200);

      const retried = await client.webhookEndpoints.retryDelivery(endpoint.id, sent.id);
      assert.equal(retried.id, sent.id);
      assert.equal(retried.eventId, sent.eventId);
      const hits = await deliveriesAt(path, 2);
      const ids = hits.map((h) => (JSON.parse(h.body) as { id: string }).id);
      assert.deepEqual(ids, [sent.eventId, sent.eventId], 'a retry reuses the event id');

      const page = await client.webhookEndpoints.listDeliveries(endpoint.id, { limit: 1 });
      assert.equal(page.data.length, 1);
    });

    test('retryDelivery of an unknown delivery is NotFoundError', async () => {
      const { client } = await freshClient();
      const endpoint = await client.webhookEndpoints.create({
        url: `${receiver.url}/retry-unknown`,
        events: ['call.missed'],
      });
      await rejectsWith(
        client.webhookEndpoints.retryDelivery(endpoint.id, 'whd_nope'),
        NotFoundError,
        404,
        'not_found',
      );
    });

    test('recover redelivers every subscribed event since a time and says how many', async () => {
      const { acct, client } = await freshClient();
      const since = new Date(Date.now() - 60_000);
      await client.contacts.create({ phone: phone(), name: 'First' });
      await client.contacts.create({ phone: phone(), name: 'Second' });
      await client.sandbox.call({ from: phone(), to: acct.testNumbers[0]!, outcome: 'missed' });
      const path = '/recover';
      const endpoint = await client.webhookEndpoints.create({
        url: receiver.url + path,
        events: ['contact.created'],
      });
      const recovery = await client.webhookEndpoints.recover(endpoint.id, { since });
      assert.deepEqual(recovery, { object: 'recovery', count: 2 });
      const hits = await deliveriesAt(path, 2);
      const names = hits.map((h) => (JSON.parse(h.body) as { data: { name: string } }).data.name);
      assert.deepEqual(names.sort(), ['First', 'Second']);
      const none = await client.webhookEndpoints.recover(endpoint.id, {
        since: new Date().toISOString(),
      });
      assert.equal(none.count, 0);
    });

    test('rotateSecret returns a new secret and later deliveries verify with it', async () => {
      const { client } = await freshClient();
      const path = '/rotate';
      const endpoint = await client.webhookEndpoints.create({
        url: receiver.url + path,
        events: ['call.missed'],
      });
      const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
      assert.equal(rotated.id, endpoint.id);
      assert.match(rotated.secret ?? '', /^whsec_/);
      assert.notEqual(rotated.secret, endpoint.secret);
      await client.webhookEndpoints.sendTestEvent(endpoint.id, { type: 'call.missed' });
      const [hit] = await deliveriesAt(path, 1);
      const header = hit!.headers['x-service-signature'] as string;
      await verifyWebhook(hit!.body, header, rotated.secret!);
      // During the rotation window the old secret still verifies too.
      await verifyWebhook(hit!.body, header, endpoint.secret!);
    });

    test('del deletes the endpoint; it is NotFoundError afterwards', async () => {
      const { client } = await freshClient();
      const endpoint = await client.webhookEndpoints.create({
        url: `${receiver.url}/delete`,
        events: ['call.missed'],
      });
      assert.deepEqual(await client.webhookEndpoints.del(endpoint.id), {
        id: endpoint.id,
        object: 'webhook_endpoint',
        deleted: true,
      });
      await rejectsWith(
        client.webhookEndpoints.retrieve(endpoint.id),
        NotFoundError,
        404,
        'not_found',
      );
      await rejectsWith(client.webhookEndpoints.del(endpoint.id), NotFoundError, 404, 'not_found');
    });
  });
}
