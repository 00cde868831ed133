// SIGTERM with softphones connected: every live channel is told at once, the process exits
// within SWITCHBOARD_SHUTDOWN_TIMEOUT_MS, and every send it answered 201 is in the store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { openStore } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import {
  type ServeProcess,
  createAccountWithCli,
  runCli,
  startServe,
} from '../support/processes.ts';

const BOUND_MS = 4_000;

for (const engine of ENGINES) {
  describe(`graceful shutdown [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let server: ServeProcess | undefined;

    before(async () => {
      database = await createTestDatabase(engine);
      env = {
        ...database.env,
        SWITCHBOARD_LOG_LEVEL: 'silent',
        SWITCHBOARD_SHUTDOWN_TIMEOUT_MS: String(BOUND_MS),
      };
    });
    after(async () => {
      server?.child.kill('SIGKILL');
      await server?.exited;
      await database.drop();
    });

    async function softphone(url: string, email: string): Promise<WebSocket> {
      const res = await fetch(`${url}/app/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'a long enough password' }),
      });
      assert.equal(res.status, 200);
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      const socket = new WebSocket(`${url.replace('http', 'ws')}/app/ws?mode=test`, {
        headers: { cookie },
      });
      await new Promise((resolve, reject) => {
        socket.once('message', resolve);
        socket.once('error', reject);
      });
      return socket;
    }

    test('SIGTERM with two softphones connected closes both at once and exits within the bound, losing no answered send', async () => {
      const account = await createAccountWithCli(env, 'Shutdown');
      const email = `owner.${engine}@example.com`;
      const made = await runCli(
        ['users', 'create', '--account', account.id, '--email', email].concat([
          '--password',
          'a long enough password',
          '--json',
        ]),
        env,
      );
      assert.equal(made.code, 0, made.stderr);
      server = await startServe(env);
      const { url } = server;
      const sockets = [await softphone(url, email), await softphone(url, email)];
      const closes = sockets.map(
        (socket) =>
          new Promise<{ code: number; at: number }>((resolve) =>
            socket.once('close', (code) => resolve({ code, at: performance.now() })),
          ),
      );

      // Sends keep arriving while the signal lands: each one answered 201 must be stored.
      const answered: string[] = [];
      let sending = true;
      const sender = (async () => {
        for (let i = 0; sending && i < 2_000; i++) {
          try {
            const res = await fetch(`${url}/v1/messages`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${account.key}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify({
                from: account.testNumbers[0],
                to: '+14155550199',
                body: `m${i}`,
              }),
            });
            if (res.status === 201) answered.push(((await res.json()) as { id: string }).id);
            else await res.body?.cancel();
          } catch {
            return; // The server has gone.
          }
        }
      })();
      while (answered.length < 5) await new Promise((r) => setTimeout(r, 10));
      // And a client that never finishes its upload: only the bound ends its wait.
      const stalled = connect(Number(new URL(url).port), '127.0.0.1');
      await new Promise((resolve) => stalled.once('connect', resolve));
      stalled.write(
        `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${account.key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"from":',
      );
      stalled.on('error', () => undefined);

      const start = performance.now();
      server.child.kill('SIGTERM');
      const exit = await Promise.race([
        server.exited,
        new Promise<null>((r) => setTimeout(() => r(null), BOUND_MS + 3_000)),
      ]);
      const took = performance.now() - start;
      sending = false;
      await sender;
      assert.ok(exit, `still running ${BOUND_MS + 3_000} ms after SIGTERM`);
      assert.equal(exit.code, 0, server.stderr());
      assert.ok(took < BOUND_MS + 1_000, `exited after ${Math.round(took)} ms`);
      assert.ok(took > BOUND_MS * 0.5, 'the stalled upload was waited for, up to the cut');
      stalled.destroy();
      for (const closed of await Promise.all(closes)) {
        assert.equal(closed.code, 1001, 'the channel is told the server is going away');
        assert.ok(closed.at - start < 1_000, 'each channel closes at once');
      }

      const store = await openStore(database.options);
      try {
        const rows = await store.db.selectFrom('messages').select('id').execute();
        const stored = new Set(rows.map((r) => r.id));
        const lost = answered.filter((id) => !stored.has(id));
        assert.deepEqual(lost, [], `${answered.length} answered, ${lost.length} not stored`);
      } finally {
        await store.close();
      }
    });
  });
}
