import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../src/store/repos/events.ts';
import { openStore } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { waitFor } from '../support/messaging.ts';
import { type ServeProcess, createAccountWithCli, startServe } from '../support/processes.ts';
import { scoped } from '../../src/store/scope.ts';

/** Long enough to kill the server between the steps, short enough to keep the test quick. */
const DELAY_MS = 1000;

for (const engine of ENGINES) {
  describe(`messages survive a crash of the server [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    /** Every server started, killed in `after` even when a test fails. */
    const servers: ServeProcess[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      env = {
        ...database.env,
        SWITCHBOARD_LOG_LEVEL: 'silent',
        SWITCHBOARD_SANDBOX_DELAY_MS: String(DELAY_MS),
      };
    });
    after(async () => {
      for (const server of servers) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await database.drop();
    });

    async function serve(): Promise<ServeProcess> {
      const server = await startServe(env);
      servers.push(server);
      return server;
    }

    test('messages queued or sent when the server is SIGKILLed are delivered after a restart, each once', async () => {
      const account = await createAccountWithCli(env, 'Crash test');
      const { key } = account;
      const from = account.testNumbers[0]!;

      const first = await serve();
      let client = new ApiClient(first.url, key);
      const send = async (i: number) => {
        const res = await client.post('/v1/messages', {
          from,
          to: `+1415266${String(1000 + i)}`,
          body: `crash test ${i}`,
        });
        assert.equal(res.status, 201, res.text);
        return res.body.id as string;
      };

      // Three messages get as far as sent; two more are still queued when the server dies.
      const early = [await send(0), await send(1), await send(2)];
      await waitFor(
        async () => {
          const res = await client.get(`/v1/messages/${early[2]}`);
          return res.body.status === 'sent' ? true : undefined;
        },
        'the early messages to be sent',
        { timeoutMs: DELAY_MS * 5, intervalMs: 25 },
      );
      const late = [await send(3), await send(4)];
      // Let the dispatcher hand them to the sandbox carrier (its "network" is the database).
      await sleep(200);
      const before: Record<string, string> = {};
      for (const id of [...early, ...late]) {
        before[id] = (await client.get(`/v1/messages/${id}`)).body.status;
      }
      for (const id of early) assert.equal(before[id], 'sent', `${id} before the crash`);
      for (const id of late) assert.equal(before[id], 'queued', `${id} before the crash`);

      first.child.kill('SIGKILL');
      const exit = await first.exited;
      assert.equal(exit.signal, 'SIGKILL');

      const second = await serve();
      client = new ApiClient(second.url, key);
      for (const id of [...early, ...late]) {
        const done = await waitFor(
          async () => {
            const res = await client.get(`/v1/messages/${id}`);
            assert.equal(res.status, 200, res.text);
            return res.body.status === 'delivered' || res.body.status === 'failed'
              ? res.body
              : undefined;
          },
          `${id} to be delivered after the restart`,
          { timeoutMs: DELAY_MS * 10, intervalMs: 50 },
        );
        assert.equal(done.status, 'delivered', id);
      }

      // No receipt was lost or applied twice: one message.delivered each, even a while later.
      await sleep(DELAY_MS);
      const stopped = await second.stop();
      assert.equal(stopped.code, 0, second.stderr());
      const store = await openStore(database.options);
      try {
        const delivered = await listEvents(
          scoped(store.db, { accountId: account.id, mode: 'test' }),
          'message.delivered',
        );
        const perMessage = new Map<string, number>();
        for (const event of delivered) {
          const id = JSON.parse(event.data).id as string;
          perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
        }
        for (const id of [...early, ...late]) assert.equal(perMessage.get(id), 1, id);
        const failed = await listEvents(
          scoped(store.db, { accountId: account.id, mode: 'test' }),
          'message.failed',
        );
        assert.deepEqual(failed, []);
      } finally {
        await store.close();
      }
    });
  });
}
