// `npm run bench -- --smpp`: live sends through the ESME to an SMSC simulator that answers at
// once and returns receipts (smsc-sim.ts), and in the same run Kannel submitting to the same
// simulator from its sendsms interface (skipped, and said so, when Kannel is absent).
// Switchboard answers 201 only once a send is on disk; Kannel's store is never fsynced.
import { fork } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { haveKannel, startKannel } from './lib/kannel.ts';
import { api, webhookLatency } from './lib/probes.ts';
import {
  freePort,
  runCli,
  startFloor,
  startReceiver,
  startReference,
  startService,
} from './lib/processes.ts';
import { fmt, markdown, type Row, type Target } from './lib/report.ts';
import { percentilesOf, runWrk } from './lib/wrk.ts';

const LINE = '+14155550188';
const DOWN_LINE = '+14155550189';
const WINDOW = 10;
const CONNECTIONS = 64;

interface SimStats {
  submits: number;
  perSecond: number[];
  maxOutstanding: number;
  receiptsAnswered: number;
}

/** The simulator in its own process, and its counts per system_id. */
async function startSimulator() {
  const child = fork(join(import.meta.dirname, 'smsc-sim.ts'), [], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) => {
    child.stdout!.once('data', (d: Buffer) => resolve(JSON.parse(String(d).split('\n')[0]!).port));
  });
  const stats = () =>
    new Promise<Record<string, SimStats>>((resolve) => {
      child.once('message', (m: any) => resolve(m.stats));
      child.send({ type: 'stats' });
    });
  return { port, stats, stop: () => child.kill('SIGTERM') };
}

/** submit_sm per second while busy: the median of whole seconds, the first and last left out. */
function sustained(perSecond: number[]): number {
  const busy = perSecond.slice(1, -1).sort((a, b) => a - b);
  return busy.length === 0 ? 0 : busy[Math.floor(busy.length / 2)]!;
}

/** Waits (at most `ms`) until the simulator has taken `count` submit_sm from `systemId`. */
async function drained(
  sim: Awaited<ReturnType<typeof startSimulator>>,
  systemId: string,
  count: number,
  ms: number,
): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if (((await sim.stats())[systemId]?.submits ?? 0) >= count) break;
    await sleep(100);
  }
  return (performance.now() - started) / 1000;
}

/**
 * Waits (at most `ms`) until the ESME has answered a receipt for every submit_sm: the latency
 * probe that follows then measures a quiet service, not the tail of the load's receipts.
 */
async function settled(
  sim: Awaited<ReturnType<typeof startSimulator>>,
  systemId: string,
  ms: number,
): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    const own = (await sim.stats())[systemId];
    if (own && own.receiptsAnswered >= own.submits) break;
    await sleep(100);
  }
  return (performance.now() - started) / 1000;
}

/**
 * What a bare server reaches under the same POST load: the reference (reference-server.ts:
 * node:http, two rows committed in groups, fsynced), and the floor (floor-server.ts:
 * Switchboard's own writes for a send in that bare server). The floor bounds any ratio to
 * Kannel that Switchboard could reach with everything else around its writes made free.
 */
async function bareRate(
  kind: 'reference' | 'floor',
  dataDir: string,
  seconds: number,
  log: (text: string) => void,
) {
  mkdirSync(dataDir);
  const server = await (kind === 'reference' ? startReference : startFloor)(dataDir, null);
  try {
    log(`the ${kind}: POST, ${CONNECTIONS} connections, ${seconds} s`);
    const load = await runWrk({
      url: server.url,
      script: 'post.lua',
      seconds,
      connections: CONNECTIONS,
      serverPid: server.pid,
      env: { BENCH_KEY: 'none', BENCH_FROM: '+15005550100' },
      warmUp: 2,
    });
    return load.perSecond;
  } finally {
    await server.stop();
  }
}

/** An account with a live number on an SMPP connection to `port`, and its live key. */
async function liveLine(env: Record<string, string>, name: string, port: number, line: string) {
  const account = await runCli(['accounts', 'create', '--name', name], env);
  const carrier = await runCli(
    [
      'carriers',
      'add',
      '--account',
      account.id,
      '--type',
      'smpp',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--system-id',
      'switchboard',
      '--password',
      'bench',
      '--window',
      String(WINDOW),
    ],
    env,
  );
  await runCli(
    ['numbers', 'add', '--account', account.id, '--mode', 'live', line, '--carrier', carrier.id],
    env,
  );
  const key = (await runCli(['keys', 'create', '--account', account.id, '--mode', 'live'], env))
    .secret as string;
  return { account, key };
}

/**
 * The same load through a service of its own whose SMSC never answers: its sends are stored
 * and wait, durably, so it measures accepting alone, as Kannel's load does while Kannel
 * submits ~280 a second. Stopped at once: the waiting sends are tried again every 2 s, work
 * that must not fall in the loads after it.
 */
async function acceptingAlone(dir: string, seconds: number, log: (text: string) => void) {
  const env = {
    SWITCHBOARD_DATA_DIR: join(dir, 'smsc-down'),
    SWITCHBOARD_LOG_LEVEL: 'warn',
    SWITCHBOARD_RATE_LIMIT: '1000000',
    SWITCHBOARD_VOICE: 'off',
  };
  mkdirSync(env.SWITCHBOARD_DATA_DIR);
  const { key } = await liveLine(env, 'Bench, SMSC down', await freePort(), DOWN_LINE);
  const service = await startService(env);
  try {
    log(`Switchboard, its SMSC down: the same load, ${seconds} s`);
    const load = await runWrk({
      url: service.url,
      script: 'post.lua',
      seconds,
      connections: CONNECTIONS,
      serverPid: service.pid,
      env: { BENCH_KEY: key, BENCH_FROM: DOWN_LINE },
      warmUp: 2,
    });
    return load.perSecond;
  } finally {
    await service.stop();
  }
}

export async function runSmppBench(options: { seconds: number; log: (text: string) => void }) {
  const { seconds, log } = options;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-smpp-'));
  const sim = await startSimulator();
  const rows: Row[] = [];
  const targets: Target[] = [];
  try {
    log(`SMSC simulator on ${sim.port}`);
    const env = {
      SWITCHBOARD_DATA_DIR: join(dir, 'switchboard'),
      SWITCHBOARD_LOG_LEVEL: 'warn',
      SWITCHBOARD_RATE_LIMIT: '1000000',
      SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1',
      // Messaging is measured: Kamailio's start (TLS set-up, ~3 s of CPU) would fall in the load.
      SWITCHBOARD_VOICE: 'off',
    };
    mkdirSync(env.SWITCHBOARD_DATA_DIR);
    const { account, key } = await liveLine(env, 'Bench', sim.port, LINE);
    const service = await startService(env);
    const receiver = await startReceiver();
    try {
      for (let i = 0; i < 100; i++) {
        const list = await runCli(['carriers', 'list', '--account', account.id], env);
        if (list.data[0]?.status === 'bound') break;
        await sleep(200);
      }
      log(
        `Switchboard: POST /v1/messages with a live key, ${CONNECTIONS} connections, ${seconds} s`,
      );
      const load = await runWrk({
        url: service.url,
        script: 'post.lua',
        seconds,
        connections: CONNECTIONS,
        serverPid: service.pid,
        env: { BENCH_KEY: key, BENCH_FROM: LINE },
        warmUp: 2,
      });
      const drainSeconds = await drained(sim, 'switchboard', load.requests, 120_000);
      const receiptSeconds = await settled(sim, 'switchboard', 120_000);
      const own = (await sim.stats()).switchboard ?? {
        submits: 0,
        perSecond: [],
        maxOutstanding: 0,
        receiptsAnswered: 0,
      };
      log(
        `  ${Math.round(load.perSecond)} accepted/s, ${load.errors} errors ${JSON.stringify(load.failedStatuses)} ${load.firstFailure}; every submit_sm sent ${drainSeconds.toFixed(1)} s after, every receipt applied ${receiptSeconds.toFixed(1)} s after that`,
      );
      await api(service.url, key)('POST', '/v1/webhook_endpoints', {
        url: `${receiver.url}/latency`,
        events: ['message.delivered'],
      });
      const probe = await webhookLatency({
        url: service.url,
        key,
        from: LINE,
        count: 1000,
        perSecond: 100,
        receiver,
        warmUpSeconds: 2,
      });
      const percentiles = percentilesOf(probe.latencies);
      const at = (q: number) => percentiles.find(([x]) => x === q)?.[1] ?? Number.NaN;
      const p = { p50: at(50), p99: at(99) };
      rows.push(
        { name: 'Switchboard: accepted sends/s (durable)', value: fmt(load.perSecond, '') },
        {
          name: 'Switchboard: POST p50 / p99',
          value: `${fmt(load.p50, 'ms', 2)} / ${fmt(load.p99, 'ms', 1)}`,
        },
        { name: 'Switchboard: submit_sm/s sustained', value: fmt(sustained(own.perSecond), '') },
        {
          name: 'Switchboard: most submit_sm outstanding (window 10)',
          value: String(own.maxOutstanding),
        },
        {
          name: 'POST → message.delivered webhook p50 / p99 (100/s)',
          value: `${fmt(p.p50, 'ms', 1)} / ${fmt(p.p99, 'ms', 1)}, ${probe.missing} missing`,
        },
      );
      targets.push(
        {
          name: 'POST → delivered webhook p99 < 100 ms',
          measured: fmt(p.p99, 'ms', 1),
          met: p.p99 < 100 && probe.missing === 0,
        },
        {
          name: 'window never exceeded',
          measured: `${own.maxOutstanding} of ${WINDOW}`,
          met: own.maxOutstanding <= WINDOW,
        },
      );
      const queued = await acceptingAlone(dir, seconds, log);
      rows.push({
        name: 'Switchboard, its SMSC down: accepted sends/s (durable, queued; no carrier work)',
        value: fmt(queued, ''),
      });
      if (!haveKannel()) {
        log('Kannel is not installed (apt-get install kannel): its half is skipped');
        rows.push({ name: 'Kannel', value: 'not installed: skipped' });
      } else {
        mkdirSync(join(dir, 'kannel'));
        const kannel = await startKannel(join(dir, 'kannel'), sim.port, WINDOW).catch((error) => {
          log(`Kannel did not start, its half is skipped: ${String(error).split('\n')[0]}`);
          rows.push({ name: 'Kannel', value: 'did not start: skipped' });
          return null;
        });
        if (kannel)
          try {
            await sleep(2000);
            log(`Kannel: GET /cgi-bin/sendsms, ${CONNECTIONS} connections, ${seconds} s`);
            const ref = await runWrk({
              url: kannel.sendsmsUrl,
              script: 'sendsms.lua',
              seconds,
              connections: CONNECTIONS,
              serverPid: kannel.pid,
              env: { BENCH_FROM: LINE.slice(1) },
              warmUp: 2,
            });
            await drained(sim, 'kannel', ref.requests, 120_000);
            const theirs = (await sim.stats()).kannel ?? {
              submits: 0,
              perSecond: [],
              maxOutstanding: 0,
              receiptsAnswered: 0,
            };
            rows.push(
              {
                name: 'Kannel: accepted sends/s (spool not fsynced)',
                value: fmt(ref.perSecond, ''),
              },
              {
                name: 'Kannel: sendsms p50 / p99',
                value: `${fmt(ref.p50, 'ms', 2)} / ${fmt(ref.p99, 'ms', 1)}`,
              },
              {
                name: 'Kannel: submit_sm/s sustained',
                value: fmt(sustained(theirs.perSecond), ''),
              },
            );
            const ratio = load.perSecond / ref.perSecond;
            const reference = await bareRate('reference', join(dir, 'reference'), seconds, log);
            const floor = await bareRate('floor', join(dir, 'floor'), seconds, log);
            const times = (rate: number) => `${(rate / ref.perSecond).toFixed(2)} ×`;
            rows.push(
              {
                name: 'the reference (bare node:http, durable group commit): accepted sends/s',
                value: `${fmt(reference, '')} (${times(reference)} Kannel’s)`,
              },
              {
                name: 'the floor (Switchboard’s own writes in that bare server): accepted sends/s',
                value: `${fmt(floor, '')} (${times(floor)} Kannel’s)`,
              },
            );
            targets.push(
              {
                name: 'accepted sends/s ≥ 2 × Kannel’s',
                measured: `${ratio.toFixed(2)} × (SMSC down: ${times(queued)}; the floor: ${times(floor)})`,
                met: ratio >= 2,
              },
              {
                name: 'submit_sm/s sustained ≥ Kannel’s',
                measured: `${fmt(sustained(own.perSecond), '')} vs ${fmt(sustained(theirs.perSecond), '')}`,
                met: sustained(own.perSecond) >= sustained(theirs.perSecond),
              },
            );
          } finally {
            await kannel.stop();
          }
      }
    } finally {
      await receiver.stop();
      await service.stop();
    }
  } finally {
    sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = markdown(rows, targets);
  process.stdout.write(`${table}\n`);
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `${new Date().toISOString().replace(/[:.]/g, '-')}-smpp.md`);
  writeFileSync(file, `${table}\n`);
  log(`wrote ${file}`);
}
