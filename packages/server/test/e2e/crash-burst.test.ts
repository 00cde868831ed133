import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { type ServeProcess, createAccountWithCli, startServe } from '../support/processes.ts';

/** Sends in the burst, at most this many in flight: bounded, and enough to fill group commits. */
const TOTAL = 2000;
const IN_FLIGHT = 64;
/** The server is SIGKILLed when this many sends have been acknowledged: mid-burst, by count. */
const KILL_AFTER = 300;

for (const engine of ENGINES) {
  describe(`a 201 survives a SIGKILL during a burst of sends [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    const servers: ServeProcess[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      env = {
        ...database.env,
        SWITCHBOARD_LOG_LEVEL: 'silent',
        // The per-key limit would turn most of the burst into 429s.
        SWITCHBOARD_RATE_LIMIT: '1000000',
      };
    });
    after(async () => {
      for (const server of servers) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await database.drop();
    });

    test('every message acknowledged with 201 before the kill is there after a restart', async () => {
      const { key, testNumbers } = await createAccountWithCli(env, 'Burst');
      const from = testNumbers[0]!;

      const first = await startServe(env);
      servers.push(first);
      const dispatcher = new Agent({ connections: IN_FLIGHT, pipelining: 1 });
      const acknowledged: string[] = [];
      let next = 0;
      let killed = false;
      const lane = async () => {
        while (next < TOTAL && !killed) {
          const i = next++;
          try {
            const res = await request(`${first.url}/v1/messages`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                from,
                to: `+1415300${String(i % 10_000).padStart(4, '0')}`,
                body: `burst ${i}`,
              }),
              dispatcher,
            });
            const body = (await res.body.json()) as { id?: string };
            if (res.statusCode === 201 && body.id) acknowledged.push(body.id);
            else assert.fail(`send ${i} answered ${res.statusCode}: ${JSON.stringify(body)}`);
          } catch (error) {
            // After the kill, sends in flight fail without an answer; before it, nothing may.
            if (!killed) throw error;
          }
          if (!killed && acknowledged.length >= KILL_AFTER) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      await dispatcher.close();
      const exit = await first.exited;
      assert.equal(exit.signal, 'SIGKILL', 'the server was killed mid-burst');
      assert.ok(acknowledged.length >= KILL_AFTER && acknowledged.length < TOTAL);

      const second = await startServe(env);
      servers.push(second);
      const client = new ApiClient(second.url, key);
      const missing: string[] = [];
      for (const id of acknowledged) {
        const res = await client.get(`/v1/messages/${id}`);
        if (res.status !== 200) missing.push(`${id}: ${res.status}`);
        else assert.ok(['queued', 'sent', 'delivered'].includes(res.body.status), res.text);
      }
      assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged`);
      const stopped = await second.stop();
      assert.equal(stopped.code, 0, second.stderr());
    });
  });
}
