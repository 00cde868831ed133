// `switchboard serve` with voice on announces its Kamailio in voice_instances while it runs
// (so other instances fork inbound calls to it) and withdraws it when it stops.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { openStore } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startServe } from '../support/processes.ts';

for (const engine of ENGINES) {
  describe(`voice instances under switchboard serve [${engine}]`, () => {
    let database: TestDatabase;
    after(() => database?.drop());

    test("serve's Kamailio is announced while it runs, and its row is gone once serve stops", async () => {
      database = await createTestDatabase(engine);
      const server = await startServe({
        ...database.env,
        SWITCHBOARD_VOICE: 'on',
        SWITCHBOARD_LOG_LEVEL: 'error',
      });
      const store = await openStore(database.options);
      try {
        const instances = () => store.db.selectFrom('voice_instances').selectAll().execute();
        let rows = await instances();
        const announced = () => rows.length > 0 && /voice +on:/.test(server.stdout());
        for (let i = 0; i < 150 && !announced(); i++) {
          await sleep(100);
          rows = await instances();
        }
        const [, sipPort] = /voice +on: SIP 127\.0\.0\.1:(\d+)/.exec(server.stdout()) ?? [];
        assert.ok(sipPort, server.stdout());
        assert.deepEqual(
          rows.map((row) => row.sip_address),
          [`127.0.0.1:${sipPort}`],
        );
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        assert.deepEqual(await instances(), []);
      } finally {
        await server.stop();
        await store.close();
      }
    });
  });
}
