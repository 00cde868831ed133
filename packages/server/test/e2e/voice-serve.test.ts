// `switchboard serve` runs the voice stack as supervised children when SWITCHBOARD_VOICE asks,
// says so in its start banner, and stops them when it stops; with voice off, messaging alone.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { udpFree } from '../../src/voice/ports.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startServe, type ServeProcess } from '../support/processes.ts';
import { runSipp } from '../support/voice.ts';

/** The banner's lines, once its voice line is out (polled for at most 15 s). */
async function banner(serve: ServeProcess): Promise<string> {
  for (let i = 0; i < 150; i++) {
    if (/^ {2}voice +\S/m.test(serve.stdout())) return serve.stdout();
    await sleep(100);
  }
  assert.fail(`no voice line in the banner:\n${serve.stdout()}\n${serve.stderr()}`);
}

/** The processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // The parent is the fourth field, after the name in parentheses.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function signIn(url: string, out: string): Promise<string> {
  const [, email, password] = /login (\S+) \/ (\S+)/.exec(out)!;
  const res = await fetch(`${url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

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
        const programs = childrenOf(server.child.pid!);
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        for (let i = 0; i < 100 && programs.some(alive); i++) await sleep(100);
        assert.deepEqual(programs.filter(alive), [], 'none outlives serve');
      } finally {
        await server.stop();
      }
    });

    test('a serve killed with SIGKILL takes its voice programs with it', async () => {
      const server = await serve('on');
      try {
        const out = await banner(server);
        const [, sipPort] = /voice +on: SIP 127\.0\.0\.1:(\d+)/.exec(out) ?? [];
        assert.ok(sipPort, out);
        const programs = childrenOf(server.child.pid!);
        assert.ok(programs.length >= 3, `Kamailio, rtpengine and the far end: ${programs}`);
        server.child.kill('SIGKILL');
        await server.exited;
        for (let i = 0; i < 100 && programs.some(alive); i++) await sleep(100);
        assert.deepEqual(programs.filter(alive), [], 'none outlives serve');
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
