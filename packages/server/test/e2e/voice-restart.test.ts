// A call in progress outlives a restart of `switchboard serve`: the voice keeper holds Kamailio,
// rtpengine and the far end while serve is gone, the next serve of the same data directory and
// port adopts it, and the call's hang-up is recorded once with its true duration; one that ended
// meanwhile is recorded on adoption. A keeper whose serve never comes back stops once its calls
// are over; a serve on another port stops it and starts its own.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

interface Phone {
  aor: string;
  username: string;
  password: string;
  wsUrl: string;
  sipUri: string;
  cookie: string;
  number: string;
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
    after(async () => {
      await Promise.all(databases.map((d) => d.drop()));
      rmSync(dirname(scenario), { recursive: true, force: true });
    });

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
    async function answered(call: Promise<SippRun>, calls = 1): Promise<void> {
      const at = () => ({ host: '127.0.0.1', rtpenginePort: keeper().endpoint.rtpenginePort });
      let ended: SippRun | null = null;
      void call.then((run) => (ended = run));
      for (let i = 0; i < 100 && !ended; i++) {
        if ((await rtpCalls(at())).length >= calls) return;
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
      return { ...login, cookie, number: (numbers as any).data[0].phone as string } as Phone;
    }

    /** What the store holds: the account's call.completed events, and the calls kept open. */
    async function stored(accountId: string) {
      const store = await openStore(database.options);
      try {
        const events = await eventsOf(store.db, accountId, 'test', 'call.completed');
        const open = await store.db.selectFrom('open_calls').selectAll().execute();
        return { events, open };
      } finally {
        await store.close();
      }
    }

    /** The durations of the account's call.completed events once there are `count` (10 s at most). */
    async function durations(accountId: string, count: number): Promise<number[]> {
      let events: { data: { duration: number } }[] = [];
      for (let i = 0; i < 100 && events.length < count; i++) {
        events = (await stored(accountId)).events;
        if (events.length < count) await sleep(100);
      }
      await sleep(1000); // and no more than that after a while
      return (await stored(accountId)).events.map((event) => event.data.duration);
    }

    /** The softphone's call to a far-end number, talking for `pauseMs` once answered. */
    function place(phone: Phone, sipPort: number, pauseMs: number, name = 'call') {
      return runSipp({ host: '127.0.0.1', sipPort }, name, {
        keys: { from: phone.number, to: '+12065550123' },
        username: phone.username,
        password: phone.password,
        pauseMs,
        timeoutMs: pauseMs + 20_000,
      });
    }

    test('a call in progress survives serve stopped (SIGTERM) and killed (SIGKILL) and restarted: audio flows on, its hang-up is one call.completed of the time from answer to hang-up', async () => {
      const first = await serve();
      const out = await banner(first);
      const sipPort = bannerSipPort(out);
      const phone = await softphone(first.url, out);
      const keeperPid = keeper().pid;
      const talkMs = 30_000;
      const call = place(phone, sipPort, talkMs, scenario);
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
      const [duration, ...more] = await durations(phone.aor.split('.')[0]!, 1);
      assert.deepEqual(more, [], 'recorded exactly once');
      assert.ok(Math.abs(duration! - talkMs / 1000) <= 1, `duration ${duration}`);

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
      const call = place(phone, sipPort, 5000);
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

    test('a call that ends while serve is down is recorded when the next serve adopts the keeper, lasting until the keeper last saw it; the other call runs on', async () => {
      const first = await serve();
      const out = await banner(first);
      const sipPort = bannerSipPort(out);
      const phone = await softphone(first.url, out);
      const accountId = phone.aor.split('.')[0]!;
      const short = place(phone, sipPort, 4000);
      await answered(short);
      const long = place(phone, sipPort, 14_000);
      await answered(long, 2);
      for (let i = 0; i < 100 && (await stored(accountId)).open.length < 2; i++) await sleep(100);
      assert.equal((await stored(accountId)).open.length, 2, 'both calls answered');

      first.child.kill('SIGKILL');
      await first.exited;
      const ended = await short;
      assert.equal(ended.code, 0, ended.errors || ended.output);
      await sleep(1500);
      const second = await serve();
      await voiceLogin(second.url, phone.cookie);
      const [whileDown, ...none] = await durations(accountId, 1);
      assert.deepEqual(none, [], 'the call in progress stays open');
      assert.ok(Math.abs(whileDown! - 4) <= 1, `duration ${whileDown}`);

      const run = await long;
      assert.equal(run.code, 0, run.errors || run.output);
      const all = (await durations(accountId, 2)).sort((a, b) => a - b);
      assert.equal(all.length, 2);
      assert.ok(Math.abs(all[1]! - 14) <= 1, `duration ${all[1]}`);
      assert.deepEqual((await stored(accountId)).open, []);
    });

    test('a serve on another port does not adopt the keeper (Kamailio reports to the old one): it stops it and starts its own', async () => {
      const first = await serve();
      const out = await banner(first);
      const phone = await softphone(first.url, out);
      const keeperPid = keeper().pid;
      const call = runSipp({ host: '127.0.0.1', sipPort: bannerSipPort(out) }, 'call', {
        keys: { from: phone.number, to: '+12065550123' },
        username: phone.username,
        password: phone.password,
        pauseMs: 8000,
        timeoutMs: 10_000,
      });
      await answered(call);
      const programs = descendantsOf(keeperPid).concat(keeperPid);
      first.child.kill('SIGKILL');
      await first.exited;
      await sleep(500);
      assert.ok(alive(keeperPid), 'kept for the call');
      port = await freePort();
      const second = await serve();
      await voiceLogin(second.url, phone.cookie);
      assert.notEqual(keeper().pid, keeperPid, 'a keeper of its own');
      assert.deepEqual(await stillRunning(programs), [], 'the old keeper stopped');
      await call;
    });
  });
}
