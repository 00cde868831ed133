// `switchboard serve` runs the voice stack (under its voice keeper) when SWITCHBOARD_VOICE asks,
// says so in its start banner, and stops it when it stops with no call in progress; with voice
// off, messaging alone.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { udpFree } from '../../src/voice/ports.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startServe, type ServeProcess } from '../support/processes.ts';
import { runSipp } from '../support/voice.ts';
import {
  banner,
  bannerSipPort,
  childrenOf,
  descendantsOf,
  signIn,
  stillRunning,
} from '../support/voice-serve.ts';

for (const engine of ENGINES) {
  describe(`voice under switchboard serve [${engine}]`, () => {
    const databases: TestDatabase[] = [];
    after(() => Promise.all(databases.map((database) => database.drop())));

    async function serve(voice: string): Promise<ServeProcess> {
      const database = await createTestDatabase(engine);
      databases.push(database);
      return startServe({
        ...database.env,
        SWITCHBOARD_VOICE: voice,
        SWITCHBOARD_LOG_LEVEL: 'error',
      });
    }

    test('with SWITCHBOARD_VOICE=on a signed-in softphone registers through the Kamailio serve runs, which stops with it', async () => {
      const server = await serve('on');
      try {
        const out = await banner(server);
        const [, sipPort] = /voice +on: SIP 127\.0\.0\.1:(\d+)/.exec(out) ?? [];
        assert.ok(sipPort, out);
        const cookie = await signIn(server.url, out);
        const res = await fetch(`${server.url}/app/api/voice`, { headers: { cookie } });
        assert.equal(res.status, 200);
        const login = (await res.json()) as any;
        assert.match(login.wsUrl, /^ws:\/\/127\.0\.0\.1:\d+$/);
        const run = await runSipp({ host: '127.0.0.1', sipPort: Number(sipPort) }, 'register', {
          keys: { aor: login.aor },
          username: login.username,
          password: login.password,
        });
        assert.equal(run.code, 0, run.errors || run.output);
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        assert.ok(await udpFree('127.0.0.1', Number(sipPort)), 'Kamailio stopped with serve');
      } finally {
        await server.stop();
      }
    });

    test('a SIGTERM while voice is still starting stops serve cleanly, its programs with it', async () => {
      // startServe returns once the port answers, before voice's programs are up.
      const server = await serve('on');
      try {
        const programs = descendantsOf(server.child.pid!);
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        assert.deepEqual(await stillRunning(programs), [], 'none outlives serve');
      } finally {
        await server.stop();
      }
    });

    test('a serve killed with SIGKILL while no call is in progress takes its voice keeper and programs with it', async () => {
      const server = await serve('on');
      try {
        const sipPort = bannerSipPort(await banner(server));
        const [keeper] = childrenOf(server.child.pid!);
        const programs = descendantsOf(server.child.pid!);
        assert.ok(
          childrenOf(keeper!).length >= 3,
          `Kamailio, rtpengine and the far end: ${programs}`,
        );
        server.child.kill('SIGKILL');
        await server.exited;
        assert.deepEqual(
          await stillRunning(programs),
          [],
          'with no call in progress, none outlives serve',
        );
        assert.ok(await udpFree('127.0.0.1', Number(sipPort)), 'its SIP port is free again');
      } finally {
        await server.stop();
      }
    });

    test('with SWITCHBOARD_VOICE=off the banner says so and the softphone gets no SIP credentials', async () => {
      const server = await serve('off');
      try {
        const out = await banner(server);
        assert.match(out, /voice +off \(SWITCHBOARD_VOICE=off\)/);
        const cookie = await signIn(server.url, out);
        const res = await fetch(`${server.url}/app/api/voice`, { headers: { cookie } });
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as any).error.type, 'not_found');
      } finally {
        await server.stop();
      }
    });
  });
}
