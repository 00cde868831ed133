// The outbox across a crash: events committed by a `switchboard serve` that is then
// killed with SIGKILL are all delivered, with their evt_ ids, by the next process on
// the same storage. Real processes, real signals, a real receiver.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook } from '../../../sdk/src/webhooks/verify.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { waitFor } from '../support/messaging.ts';
import {
  type ServeProcess,
  createAccountWithCli,
  freePort,
  startServe,
} from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

const CONTACTS = 5;

/** Kills a server at once, as a crash would, and waits for it to be gone. */
async function crash(server: ServeProcess): Promise<void> {
  server.child.kill('SIGKILL');
  const exit = await server.exited;
  assert.equal(exit.signal, 'SIGKILL');
}

for (const engine of ENGINES) {
  describe(`webhook deliveries survive a crash [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let key: string;
    const servers: ServeProcess[] = [];
    const receivers: Receiver[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      env = {
        ...database.env,
        SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1',
        SWITCHBOARD_LOG_LEVEL: 'silent',
      };
      key = (await createAccountWithCli(env, 'Crash')).key;
    });
    after(async () => {
      // Every child is killed even when a test failed half-way.
      for (const server of servers) {
        if (server.child.exitCode === null && server.child.signalCode === null) {
          server.child.kill('SIGKILL');
          await server.exited;
        }
      }
      for (const receiver of receivers) await receiver.close();
      await database.drop();
    });

    async function serve(extra: Record<string, string> = {}): Promise<ServeProcess> {
      const server = await startServe({ ...env, ...extra });
      servers.push(server);
      return server;
    }

    /** Creates `CONTACTS` contacts through `client` and returns their ids. */
    async function createContacts(client: ApiClient, area: string): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < CONTACTS; i++) {
        const res = await client.post('/v1/contacts', { phone: `+1${area}555${1000 + i}` });
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id);
      }
      return ids;
    }

    /** The event ids of an endpoint's deliveries, from the delivery log. */
    async function loggedEventIds(client: ApiClient, endpointId: string): Promise<string[]> {
      const res = await client.get(`/v1/webhook_endpoints/${endpointId}/deliveries?limit=100`);
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((d: any) => d.eventId).sort();
    }

    /** Waits for one request per event at `path` and checks each against the contacts and the secret. */
    async function expectDelivered(
      receiver: Receiver,
      path: string,
      eventIds: string[],
      contactIds: string[],
      secret: string,
    ): Promise<void> {
      await waitFor(
        async () => {
          const ids = new Set(receiver.at(path).map((r) => String(r.headers['webhook-id'])));
          return eventIds.every((id) => ids.has(id)) ? ids : undefined;
        },
        `all ${eventIds.length} events at ${path}`,
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      const seenContacts = new Set<string>();
      for (const request of receiver.at(path)) {
        const event = await verifyWebhook(
          request.raw,
          String(request.headers['x-service-signature']),
          secret,
        );
        assert.equal(event.type, 'contact.created');
        assert.equal(event.id, request.headers['webhook-id']);
        seenContacts.add((event.data as any).id);
      }
      assert.deepEqual([...seenContacts].sort(), [...contactIds].sort());
    }

    test('events whose endpoint refused every connection before a SIGKILL are delivered after the restart', async () => {
      const port = await freePort();
      const first = await serve();
      const client = new ApiClient(first.url, key);
      const endpoint = await client.post('/v1/webhook_endpoints', {
        url: `http://127.0.0.1:${port}/crash`,
        events: ['contact.created'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      const contactIds = await createContacts(client, '312');

      // Every first attempt has failed (nothing listens yet) and none is in flight,
      // so what survives the kill is only what the database holds.
      await waitFor(
        async () => {
          const res = await client.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
          const data: any[] = res.body.data;
          return data.length === CONTACTS &&
            data.every((d) => d.attempts.length >= 1 && d.status === 'pending')
            ? data
            : undefined;
        },
        'a refused first attempt for every event',
        { timeoutMs: 5_000, intervalMs: 20 },
      );
      const eventIds = await loggedEventIds(client, endpoint.body.id);
      assert.equal(eventIds.length, CONTACTS);
      await crash(first);

      const receiver = await startReceiver({ port });
      receivers.push(receiver);
      const second = await serve();
      await expectDelivered(receiver, '/crash', eventIds, contactIds, endpoint.body.secret);
      const after = new ApiClient(second.url, key);
      await waitFor(
        async () => {
          const res = await after.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
          return res.body.data.every((d: any) => d.status === 'succeeded') ? true : undefined;
        },
        'every delivery succeeded',
        { timeoutMs: 5_000, intervalMs: 50 },
      );
      await second.stop();
    });

    test('events committed by a process that never got to deliver them are delivered by the next one', async () => {
      const receiver = await startReceiver();
      receivers.push(receiver);
      // An API-only process: it commits events and their deliveries but sends nothing.
      const apiOnly = await serve({ SWITCHBOARD_ROLES: 'api' });
      const client = new ApiClient(apiOnly.url, key);
      const endpoint = await client.post('/v1/webhook_endpoints', {
        url: `${receiver.url}/outbox`,
        events: ['contact.created'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      const contactIds = await createContacts(client, '646');
      const eventIds = await loggedEventIds(client, endpoint.body.id);
      assert.equal(eventIds.length, CONTACTS, 'a delivery per event, committed with it');
      await sleep(200);
      assert.equal(receiver.at('/outbox').length, 0, 'nothing sent before the crash');
      await crash(apiOnly);

      const worker = await serve();
      await expectDelivered(receiver, '/outbox', eventIds, contactIds, endpoint.body.secret);
      assert.equal(receiver.at('/outbox').length, CONTACTS, 'each event once');
      await worker.stop();
    });

    test('a SIGTERM while a delivery awaits its answer records that answer before exiting, and it is not sent again', async () => {
      const receiver = await startReceiver();
      receivers.push(receiver);
      receiver.on('/slow', { status: 200, delayMs: 800 });
      const first = await serve();
      const client = new ApiClient(first.url, key);
      const endpoint = await client.post('/v1/webhook_endpoints', {
        url: `${receiver.url}/slow`,
        events: ['contact.created'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      await createContacts(client, '718');
      // Every POST has arrived; the answers are still held by the receiver.
      await receiver.waitFor('/slow', CONTACTS);
      const exit = await first.stop();
      assert.deepEqual(exit, { code: 0, signal: null });

      const second = await serve();
      const after = new ApiClient(second.url, key);
      const res = await after.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, CONTACTS);
      for (const delivery of res.body.data) {
        assert.equal(delivery.status, 'succeeded');
        assert.deepEqual(
          delivery.attempts.map((a: any) => a.statusCode),
          [200],
        );
      }
      await sleep(200);
      assert.equal(receiver.at('/slow').length, CONTACTS, 'each event once');
      await second.stop();
    });
  });
}
