// A call in progress outlives a restart of `switchboard serve`: the voice keeper holds Kamailio,
// rtpengine and the far end while serve is gone, the next serve of the same data directory and
// port adopts it, and the call's hang-up is recorded once with its true duration. A keeper
// whose serve never comes back stops once its calls are over.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readKeeperState } from '../../src/voice/keeper-protocol.ts';
import { openStore } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { eventsOf } from '../support/messaging.ts';
import { freePort, startServe, type ServeProcess } from '../support/processes.ts';
import { rtpCalls, rtpLegs, runSipp, type SippRun } from '../support/voice.ts';
import {
  alive,
  banner,
  bannerSipPort,
  descendantsOf,
  signIn,
  stillRunning,
} from '../support/voice-serve.ts';

/** call.xml with the caller sending audio (PCMU silence, looped) once answered. */
function scenarioWithAudio(): string {
  const dir = mkdtempSync(join(tmpdir(), 'voice-restart-'));
  const audio = join(dir, 'silence.ulaw');
  writeFileSync(audio, Buffer.alloc(8000, 0xff));
  const call = readFileSync(join(import.meta.dirname, '..', 'support', 'sip', 'call.xml'), 'utf8');
  const scenario = join(dir, 'call-with-audio.xml');
  const stream = `<nop><action><exec rtp_stream="${audio},-1,0"/></action></nop>\n  <pause/>`;
  writeFileSync(scenario, call.replace('<pause/>', stream));
  return scenario;
}

for (const engine of ENGINES) {
  describe(`a call in progress across restarts of serve [${engine}]`, () => {
    let database: TestDatabase;
    let port: number;
    let server: ServeProcess | null = null;
    const databases: TestDatabase[] = [];
    const scenario = scenarioWithAudio();
    // Each test its own data directory and port: its first serve's banner gives the login.
    beforeEach(async () => {
      database = await createTestDatabase(engine);
      databases.push(database);
      port = await freePort();
    });
    afterEach(() => server?.stop());
    after(() => Promise.all(databases.map((d) => d.drop())));

    const serve = async () => {
      server = await startServe(
        { ...database.env, SWITCHBOARD_VOICE: 'on', SWITCHBOARD_LOG_LEVEL: 'error' },
        [],
        { port },
      );
      return server;
    };
    const keeper = () => readKeeperState(database.options.dataDir)!;

    /** Packets rtpengine relayed for the one call it holds, both parties together. */
    async function packets(): Promise<number> {
      const at = { host: '127.0.0.1', rtpenginePort: keeper().endpoint.rtpenginePort };
      const [callId] = await rtpCalls(at);
      assert.ok(callId, 'rtpengine holds the call');
      const legs = await rtpLegs(at, callId);
      return legs.reduce((sum, leg) => sum + leg.packets, 0);
    }

    async function audioFlows(what: string): Promise<void> {
      const first = await packets();
      await sleep(1000);
      assert.ok((await packets()) > first + 20, `audio flows ${what}`);
    }

    /** Waits (10 s at most) until rtpengine relays the call; fails with sipp's account if not. */
    async function answered(call: Promise<SippRun>): Promise<void> {
      const at = () => ({ host: '127.0.0.1', rtpenginePort: keeper().endpoint.rtpenginePort });
      let ended: SippRun | null = null;
      void call.then((run) => (ended = run));
      for (let i = 0; i < 100 && !ended; i++) {
        if ((await rtpCalls(at())).length > 0) return;
        await sleep(100);
      }
      assert.fail(`the call was not answered: ${JSON.stringify(ended ?? 'still running')}`);
    }

    /** What `GET /app/api/voice` gives once voice runs (polled for at most 15 s). */
    async function voiceLogin(url: string, cookie: string): Promise<any> {
      for (let i = 0; i < 150; i++) {
        const res = await fetch(`${url}/app/api/voice`, { headers: { cookie } });
        if (res.status === 200) return res.json();
        await sleep(100);
      }
      assert.fail('voice did not come up within 15 s');
    }

    /** The SIP credentials and a test number of the banner's login, and its session. */
    async function softphone(url: string, out: string) {
      const cookie = await signIn(url, out);
      const login = await voiceLogin(url, cookie);
      const numbers = await (await fetch(`${url}/app/api/numbers`, { headers: { cookie } })).json();
      return { ...login, cookie, number: (numbers as any).data[0].phone as string };
    }

    async function callEvents(accountId: string) {
      const store = await openStore(database.options);
      try {
        return await eventsOf(store.db, accountId, 'test', 'call.completed');
      } finally {
        await store.close();
      }
    }

    test('a call in progress survives serve stopped (SIGTERM) and killed (SIGKILL) and restarted: audio flows on, its hang-up is one call.completed of the time from answer to hang-up', async () => {
      const first = await serve();
      const out = await banner(first);
      const sipPort = bannerSipPort(out);
      const phone = await softphone(first.url, out);
      const keeperPid = keeper().pid;
      const talkMs = 30_000;
      const call: Promise<SippRun> = runSipp({ host: '127.0.0.1', sipPort }, scenario, {
        keys: { from: phone.number, to: '+12065550123' },
        username: phone.username,
        password: phone.password,
        pauseMs: talkMs,
        timeoutMs: talkMs + 20_000,
      });
      await answered(call);
      await audioFlows('before any restart');

      assert.deepEqual(await first.stop(), { code: 0, signal: null });
      assert.ok(alive(keeperPid), 'the keeper stays for the call');
      await audioFlows('while serve is stopped');
      const second = await serve();
      const again = await voiceLogin(second.url, phone.cookie);
      assert.deepEqual([again.wsUrl, again.sipUri], [phone.wsUrl, phone.sipUri], 'the same ports');
      assert.equal(keeper().pid, keeperPid, 'the same keeper, adopted');
      await audioFlows('after serve restarted');

      second.child.kill('SIGKILL');
      await second.exited;
      await sleep(500);
      assert.ok(alive(keeperPid), 'the keeper stays for the call');
      const third = await serve();
      assert.equal((await voiceLogin(third.url, phone.cookie)).wsUrl, phone.wsUrl);
      assert.equal(keeper().pid, keeperPid);
      await audioFlows('after serve was killed and restarted');

      const run = await call;
      assert.equal(run.code, 0, run.errors || run.output);
      const accountId = phone.aor.split('.')[0];
      let events: any[] = [];
      for (let i = 0; i < 50 && events.length === 0; i++) {
        events = await callEvents(accountId);
        if (events.length === 0) await sleep(100);
      }
      await sleep(1000);
      events = await callEvents(accountId);
      assert.equal(events.length, 1, 'recorded exactly once');
      const duration = events[0].data.duration as number;
      assert.ok(Math.abs(duration - talkMs / 1000) <= 1, `duration ${duration}`);

      const programs = descendantsOf(keeperPid).concat(keeperPid);
      assert.deepEqual(await third.stop(), { code: 0, signal: null });
      assert.deepEqual(
        await stillRunning(programs),
        [],
        'no call left: the keeper stops with serve',
      );
    });

    test('a keeper whose serve does not come back stops, with its programs, once its calls end', async () => {
      const lone = await serve();
      const out = await banner(lone);
      const sipPort = bannerSipPort(out);
      const phone = await softphone(lone.url, await banner(lone));
      const keeperPid = keeper().pid;
      const call = runSipp({ host: '127.0.0.1', sipPort }, 'call', {
        keys: { from: phone.number, to: '+12065550123' },
        username: phone.username,
        password: phone.password,
        pauseMs: 5000,
        timeoutMs: 20_000,
      });
      await answered(call);
      const programs = descendantsOf(keeperPid).concat(keeperPid);
      lone.child.kill('SIGKILL');
      await lone.exited;
      await sleep(1500);
      assert.ok(alive(keeperPid), 'kept while the call runs');
      const run = await call;
      assert.equal(run.code, 0, run.errors || run.output);
      assert.deepEqual(await stillRunning(programs), [], 'gone once the call ended');
    });
  });
}
