// A `switchboard serve` started on a port another process holds exits without
// having sent anything: its background workers start only once it listens. Before,
// the store thread's workers ran from the start, and such a process delivered the
// webhooks and sent the messages of a service it was never part of for the second
// or so it took to give up. Real processes, a real port held, a real receiver.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { waitFor } from '../support/messaging.ts';
import {
  type CliAccount,
  type ServeProcess,
  childEnv,
  createAccountWithCli,
  MAIN,
  startServe,
} from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/** Longest a `serve` that cannot listen may take to exit. */
const EXIT_WITHIN_MS = 30_000;

/** Runs `switchboard serve` on `port` and waits (bounded) for it to exit. */
async function serveOnTakenPort(
  env: Record<string, string>,
  port: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (c, s) => resolve([c, s])),
  );
  clearTimeout(timer);
  return { code, signal, stderr };
}

for (const engine of ENGINES) {
  describe(`a serve whose port is taken [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let account: CliAccount;
    let receiver: Receiver;
    const servers: ServeProcess[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      env = {
        ...database.env,
        SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1',
        SWITCHBOARD_SANDBOX_DELAY_MS: '0',
        SWITCHBOARD_LOG_LEVEL: 'error',
      };
      account = await createAccountWithCli(env, 'Port');
      receiver = await startReceiver();
    });
    after(async () => {
      for (const server of servers) await server.stop();
      await receiver.close();
      await database.drop();
    });

    test('exits with an error having delivered no webhook and sent no message, which the next process then does', async () => {
      // An API-only process: it records the contact's event and queues the message, and
      // holds the port; it sends nothing itself.
      const apiOnly = await startServe({ ...env, SWITCHBOARD_ROLES: 'api' });
      servers.push(apiOnly);
      const client = new ApiClient(apiOnly.url, account.key);
      const endpoint = await client.post('/v1/webhook_endpoints', {
        url: `${receiver.url}/taken`,
        events: ['contact.created'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);
      const contact = await client.post('/v1/contacts', { phone: '+13125550101' });
      assert.equal(contact.status, 201, contact.text);
      const message = await client.post('/v1/messages', {
        from: account.testNumbers[0],
        to: '+13125550102',
        body: 'Waiting for a worker',
      });
      assert.equal(message.status, 201, message.text);

      const port = Number(new URL(apiOnly.url).port);
      const exit = await serveOnTakenPort(env, port);
      assert.notEqual(exit.signal, 'SIGKILL', `serve did not exit within ${EXIT_WITHIN_MS} ms`);
      assert.notEqual(exit.code, 0, exit.stderr);
      assert.match(exit.stderr, /EADDRINUSE/);

      // Anything the exited process had sent would be here, or recorded, by now.
      await sleep(300);
      assert.equal(receiver.at('/taken').length, 0, 'no webhook delivered');
      const queued = await client.get(`/v1/messages/${message.body.id}`);
      assert.equal(queued.status, 200, queued.text);
      assert.equal(queued.body.status, 'queued', 'the message not handed to the carrier');
      const deliveries = await client.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
      assert.equal(deliveries.status, 200, deliveries.text);
      assert.deepEqual(
        deliveries.body.data.map((d: { attempts: unknown[] }) => d.attempts.length),
        [0],
        'no attempt made',
      );

      // The work was there to be done: a process that listens does it.
      await apiOnly.stop();
      const worker = await startServe(env);
      servers.push(worker);
      await receiver.waitFor('/taken', 1);
      const after = new ApiClient(worker.url, account.key);
      await waitFor(
        async () => {
          const res = await after.get(`/v1/messages/${message.body.id}`);
          return res.body.status !== 'queued' ? res.body.status : undefined;
        },
        'the message handed to the carrier',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
    });
  });
}
