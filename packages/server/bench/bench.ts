// `npm run bench [-- --postgres] [-- --seconds 10] [-- --messages 1000000] [-- --rounds 3]`
// (`-- --smpp`: live sends over SMPP against Kannel, smpp-bench.ts)
// Starts the real service from a fresh data directory, loads it from wrk (a separate
// process), measures the reference (reference-server.ts, reference-webhook-loop.ts) in the
// same run, and the floor (floor-server.ts: Switchboard's own writes for a send in the
// reference's bare server), and prints a table with the ratios. Each load runs `--rounds`
// times, and the loads compared with a reference take turns with it: the ratio is the median
// of each round's, as a machine whose speed drifts by a fifth within a minute
// (docs/benchmarks.md) moves both sides of a round alike. Writes bench-results/<run>.json
// and an SVG chart of the latency distributions. Talks to 127.0.0.1 only; bounded to a few
// minutes.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { randomBase62 } from '../src/lib/ids.ts';
import { openStore, type Store } from '../src/store/store.ts';
import { api, drainRate, pushLatency, signIn, webhookLatency, type Probed } from './lib/probes.ts';
import {
  peakRssMb,
  resetPeakRss,
  runCli,
  startFloor,
  startReceiver,
  startReference,
  startService,
  type Running,
} from './lib/processes.ts';
import { fmt, latencyChart, markdown } from './lib/report.ts';
import { summarize } from './lib/summary.ts';
import { diskSyncs } from './lib/disk.ts';
import { seedConversations, seedEvents, seedMessages, type SeedScope } from './lib/seed.ts';
import { haveWrk, percentilesOf, runWrk, type LoadResult } from './lib/wrk.ts';

const { values } = parseArgs({
  options: {
    postgres: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
    messages: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    smpp: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const MESSAGES = Number(values.messages);
const ROUNDS = Math.max(1, Math.floor(Number(values.rounds)));
const CONNECTIONS = 64;
const FANOUT_ENDPOINTS = 4;
const FANOUT_EVENTS = 5000;
/** The disk's flushes are timed at the webhook probe's rate of sends. */
const DISK_SYNCS_PER_SECOND = 200;
const DISK_SECONDS = 10;
const ROOT = join(import.meta.dirname, '..', '..', '..');
const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);

if (!haveWrk()) {
  log('wrk is not installed: apt-get install -y wrk');
  process.exit(2);
}
if (values.smpp) {
  const { runSmppBench } = await import('./smpp-bench.ts');
  await runSmppBench({ seconds: SECONDS, log });
  process.exit(0);
}

/**
 * Where this run stores data: a temporary directory, and with --postgres a new PostgreSQL
 * database for the service and the reference, and another for the floor (its schema is the
 * service's).
 */
async function storage(): Promise<{
  dataDir: string;
  databaseUrl: string | null;
  floorDatabaseUrl: string | null;
  drop(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  if (!values.postgres)
    return {
      dataDir,
      databaseUrl: null,
      floorDatabaseUrl: null,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  const admin = process.env.SWITCHBOARD_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `sb_bench_${randomBase62(10).toLowerCase()}`;
  const names = [name, `${name}_floor`];
  const adminQuery = async (text: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };
  const urlOf = (database: string) => {
    const url = new URL(admin);
    url.pathname = `/${database}`;
    return url.toString();
  };
  for (const database of names) await adminQuery(`CREATE DATABASE ${database}`);
  return {
    dataDir,
    databaseUrl: urlOf(names[0]!),
    floorDatabaseUrl: urlOf(names[1]!),
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      for (const database of names) {
        await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      }
    },
  };
}

function machine() {
  const cpuModel =
    /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model;
  return {
    cpus: cpus().length,
    cpuModel,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
    date: new Date().toISOString(),
  };
}

/** Counts the messages still on their way to the carrier or its receipts. */
async function undelivered(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['queued', 'sent'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const info = machine();
const engine = values.postgres ? 'postgres' : 'sqlite';
log(`${engine}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverageAtStart.join(' ')}`);
const place = await storage();
const env: Record<string, string> = {
  SWITCHBOARD_DATA_DIR: place.dataDir,
  ...(place.databaseUrl ? { DATABASE_URL: place.databaseUrl } : {}),
  SWITCHBOARD_LOG_LEVEL: 'warn',
  // The default 100 requests/s per key is a product limit, not a capacity: lifted for the load.
  SWITCHBOARD_RATE_LIMIT: '1000000',
  SWITCHBOARD_SANDBOX_DELAY_MS: '0',
  SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1',
  // Messaging is measured: Kamailio's start (TLS set-up, ~3 s of CPU) would fall in the load.
  SWITCHBOARD_VOICE: 'off',
};
/**
 * The PostgreSQL server's settings that change what a run measures: without autovacuum
 * no table is ever analyzed or vacuumed, and plans and dead rows differ from a
 * production server's (measured in docs/benchmarks.md's history).
 */
async function postgresSettings(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, string>>(
      `select current_setting('server_version') as version,
         current_setting('autovacuum') as autovacuum, current_setting('fsync') as fsync,
         current_setting('synchronous_commit') as synchronous_commit,
         current_setting('shared_buffers') as shared_buffers`,
    );
    return rows[0]!;
  } finally {
    await client.end();
  }
}
const settings = place.databaseUrl ? await postgresSettings(place.databaseUrl) : null;
if (settings) {
  log(
    `PostgreSQL ${settings.version}: ${Object.entries(settings)
      .filter(([name]) => name !== 'version')
      .map(([name, value]) => `${name}=${value}`)
      .join(', ')}`,
  );
}
const results: Record<string, unknown> = {
  machine: info,
  engine,
  ...(settings ? { postgresSettings: settings } : {}),
  seconds: SECONDS,
  connections: CONNECTIONS,
};
const WARM_UP = 2;
/** A POST load; the first one of each server is preceded by a warm-up. */
const post = (url: string, pid: number, key: string, from: string, warm: boolean) =>
  runWrk({
    url,
    script: 'post.lua',
    seconds: SECONDS,
    connections: CONNECTIONS,
    serverPid: pid,
    env: { BENCH_KEY: key, BENCH_FROM: from },
    warmUp: warm ? 0 : WARM_UP,
  });
/**
 * `--rounds` GET loads of `ids`, the first preceded by a warm-up. No reference takes turns
 * with them; rounds still matter: a 10 s load's p99 on this kind of machine moved between
 * 4.4 and 8.8 ms from one run to the next, and once to 38 ms (docs/benchmarks.md).
 */
const gets = async (url: string, pid: number, key: string, ids: string[]) => {
  const file = join(place.dataDir, 'ids.txt');
  writeFileSync(file, `${ids.join('\n')}\n`);
  const runs: LoadResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    runs.push(
      await runWrk({
        url,
        script: 'get.lua',
        seconds: SECONDS,
        connections: CONNECTIONS,
        serverPid: pid,
        env: { BENCH_KEY: key, BENCH_IDS: file },
        warmUp: round === 1 ? WARM_UP : 0,
      }),
    );
  }
  return runs;
};

/** Runs reference-webhook-loop.ts: as many signed POSTs to the receiver as the fan-out's. */
async function referenceLoop(receiverUrl: string): Promise<{ perSecond: number; errors: number }> {
  const loop = spawn(
    process.execPath,
    [
      join(import.meta.dirname, 'reference-webhook-loop.ts'),
      receiverUrl,
      String(FANOUT_EVENTS * FANOUT_ENDPOINTS),
      String(FANOUT_ENDPOINTS * 10),
      String(FANOUT_ENDPOINTS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let loopOut = '';
  loop.stdout.on('data', (d: Buffer) => (loopOut += d));
  await new Promise((r) => loop.on('close', r));
  return JSON.parse(loopOut) as { perSecond: number; errors: number };
}

/** A probe's percentiles for the JSON, its warm-up's apart. */
const probeResult = (probed: Probed) => ({
  percentiles: percentilesOf(probed.latencies),
  missing: probed.missing,
  warmUp: { percentiles: percentilesOf(probed.warmUp.latencies), missing: probed.warmUp.missing },
});

/** The service's error-level log lines (it logs at warn), kept so a run with errors says why. */
const serviceErrors: string[] = [];
async function stopService(running: Running): Promise<void> {
  await running.stop();
  serviceErrors.push(
    ...running
      .output()
      .split('\n')
      .filter((l) => /"level":(50|60)\b/.test(l)),
  );
}

let store: Store | null = null;
/**
 * The bench's own connection to the service's database, for seeding and counting. Not an
 * instance: it does not listen, or the service would relay its signals to it.
 */
const openBenchStore = () =>
  openStore({
    dataDir: place.dataDir,
    databaseUrl: place.databaseUrl,
    durability: 'normal',
    hearOthers: false,
  });
const receiver = await startReceiver();
try {
  log('reference server: POST, durable group commit');
  const refDir = join(place.dataDir, 'reference');
  mkdirSync(refDir);
  const reference = await startReference(refDir, place.databaseUrl);
  // The floor (floor-server.ts): Switchboard's own writes for a send in the reference's shape.
  const floorDir = join(place.dataDir, 'floor');
  mkdirSync(floorDir);
  const floor = await startFloor(floorDir, place.floorDatabaseUrl);

  const account = await runCli(['accounts', 'create', '--name', 'Bench'], env);
  const key = (await runCli(['keys', 'create', '--account', account.id, '--mode', 'test'], env))
    .secret as string;
  const login = { email: 'bench@example.com', password: 'bench-password-1' };
  await runCli(
    [
      'users',
      'create',
      '--account',
      account.id,
      '--email',
      login.email,
      '--password',
      login.password,
    ],
    env,
  );
  const scope: SeedScope = { accountId: account.id, mode: 'test', from: account.testNumbers[0] };
  store = await openBenchStore();
  const threads = await seedConversations(store, scope);
  const ids10k = await seedMessages(store, scope, threads, 10_000);

  let service = await startService(env);
  log(`GET /v1/messages/{id} on 10 k messages, ${ROUNDS} × ${SECONDS} s`);
  const gets10k = await gets(service.url, service.pid, key, ids10k);
  const refPosts: LoadResult[] = [];
  const floorPosts: LoadResult[] = [];
  const sbPosts: LoadResult[] = [];
  const drains: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    log(
      `round ${round}/${ROUNDS}: POST /v1/messages, ${CONNECTIONS} connections, ${SECONDS} s, to the reference (durable group commit), the floor, then to Switchboard`,
    );
    refPosts.push(await post(reference.url, reference.pid, '', '+15005550100', round > 1));
    floorPosts.push(await post(floor.url, floor.pid, '', '+15005550100', round > 1));
    const sbPost = await post(service.url, service.pid, key, scope.from, round > 1);
    sbPosts.push(sbPost);
    if (sbPost.firstFailure) log(`first failed answer: ${sbPost.firstFailure}`);
    // The carrier's side of the load is still running: the next round starts once it is done.
    const drainStarted = performance.now();
    while ((await undelivered(store)) > 0 && performance.now() - drainStarted < 180_000) {
      await new Promise((r) => setTimeout(r, 250));
    }
    drains.push((performance.now() - drainStarted) / 1000);
    log(`backlog delivered ${fmt(drains.at(-1)!, ' s', 1)} after the load`);
  }
  await reference.stop();
  await floor.stop();
  // Closed while the probes run, so that nothing of this process but their clients shares
  // the cores with the service.
  await store.close();
  store = null;

  // Peak RSS per phase: each phase's peak starts from the resident set it found.
  const rssByPhaseMb: Record<string, number> = {};
  const endPhase = (name: string, pid: number) => {
    rssByPhaseMb[name] = Math.max(rssByPhaseMb[name] ?? 0, peakRssMb(pid));
    resetPeakRss(pid);
  };
  endPhase('getAndPost', service.pid);

  // The disk's own flushes at the probe's rate, with nothing else running: each send of the
  // probe waits for several (its request's commit, its carrier reference's, its receipts').
  log(`the disk: 8 kB flushed ${DISK_SYNCS_PER_SECOND}/s for ${DISK_SECONDS} s`);
  const disk = await diskSyncs(place.dataDir, DISK_SECONDS, DISK_SYNCS_PER_SECOND);

  const call = api(service.url, key);
  await call('POST', '/v1/webhook_endpoints', {
    url: `${receiver.url}/latency`,
    events: ['message.delivered'],
  });
  log('POST → message.delivered webhook, 200/s, after 2 s of warm-up');
  const toWebhook = await webhookLatency({
    url: service.url,
    key,
    from: scope.from,
    receiver,
    count: 1000,
    perSecond: 200,
    warmUpSeconds: WARM_UP,
  });
  endPhase('webhookProbe', service.pid);
  // A password hash is memory-hard on purpose (scrypt, 32 MiB for ~50 ms): once per
  // session, not per request, so its peak is reported apart from the loads'.
  const cookie = await signIn({ url: service.url, ...login });
  endPhase('signIn', service.pid);
  log('POST → inbox WebSocket push, 100/s, after 2 s of warm-up');
  const toPush = await pushLatency({
    url: service.url,
    key,
    from: scope.from,
    cookie,
    count: 500,
    perSecond: 100,
    warmUpSeconds: WARM_UP,
  });

  for (let i = 0; i < FANOUT_ENDPOINTS; i++) {
    await call('POST', '/v1/webhook_endpoints', {
      url: `${receiver.url}/fanout/${i}`,
      events: ['message.received'],
    });
  }
  endPhase('pushProbe', service.pid);
  await stopService(service);
  store = await openBenchStore();
  const fanOuts: { delivered: number; perSecond: number }[] = [];
  const refLoops: { perSecond: number; errors: number }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // The events are recorded while the service is stopped, then it starts and delivers
    // them. Recorded from this process while the service ran, they held SQLite's write
    // lock away from it: its event loop stood still in the busy wait for ~0.3 s at a
    // time, a stall no event the service records itself would cause. Both the service
    // and the reference loop below start cold.
    await seedEvents(store, scope, FANOUT_EVENTS);
    // Written out before the service starts, as before each load (runWrk).
    spawnSync('sync');
    await receiver.stats(true);
    service = await startService(env);
    log(
      `round ${round}/${ROUNDS}: webhook fan-out, ${FANOUT_EVENTS} events × ${FANOUT_ENDPOINTS} endpoints, then the reference loop (signed POSTs, same receiver, same concurrency)`,
    );
    fanOuts.push(await drainRate(receiver, FANOUT_EVENTS * FANOUT_ENDPOINTS, 120_000));
    endPhase('fanOut', service.pid);
    await stopService(service);
    await receiver.stats(true);
    refLoops.push(await referenceLoop(receiver.url));
  }

  log(`seeding to ${MESSAGES.toLocaleString('en-US')} messages`);
  const seedStarted = performance.now();
  const ids1m = await seedMessages(store, scope, threads, MESSAGES - 10_000);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`seeded in ${fmt(seedSeconds, ' s', 1)}`);
  // The seed arrives in 20 s instead of over months: closing the bench's connection (the last
  // one on SQLite) checkpoints it into the database file, as a server would have long before,
  // so the GET load measures a large table rather than a WAL still holding the seed.
  await store.close();
  store = null;
  service = await startService(env);
  log(
    `GET /v1/messages/{id} on ${MESSAGES.toLocaleString('en-US')} messages, ${ROUNDS} × ${SECONDS} s`,
  );
  const gets1m = await gets(service.url, service.pid, key, ids1m);
  endPhase('get1m', service.pid);
  const { signIn: signInRss, ...underLoad } = rssByPhaseMb;
  const rss = Math.max(...Object.values(underLoad));
  log(
    `peak RSS: ${Object.entries(rssByPhaseMb)
      .map(([phase, mb]) => `${phase} ${fmt(mb, ' MB', 0)}`)
      .join(', ')}`,
  );
  await stopService(service);

  // Every round of every load, for the report and the JSON alike.
  const loads = { refPosts, floorPosts, sbPosts, gets10k, gets1m, fanOuts, refLoops };
  const measured = {
    connections: CONNECTIONS,
    messages: MESSAGES,
    endpoints: FANOUT_ENDPOINTS,
    ...loads,
    toWebhook,
    toPush,
    rss,
    signInRss: signInRss!,
    drainSeconds: Math.max(...drains),
    seedSeconds,
    disk,
  };
  if (serviceErrors.length > 0) {
    log(`the service logged ${serviceErrors.length} errors; the first: ${serviceErrors[0]}`);
  }
  const { rows, targets, series } = summarize(measured);
  const table = markdown(rows, targets);
  process.stdout.write(`\n${table}\n\n`);

  Object.assign(results, {
    rounds: ROUNDS,
    ...loads,
    toWebhook: probeResult(toWebhook),
    toPush: probeResult(toPush),
    rssMb: rss,
    rssByPhaseMb,
    drainSeconds: drains,
    seedSeconds,
    disk,
    serviceErrors: serviceErrors.slice(0, 50),
    rows,
    targets,
    table,
  });
  const outDir = join(ROOT, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const stem = `${info.date.replaceAll(':', '-').slice(0, 19)}-${engine}`;
  writeFileSync(join(outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const chart = latencyChart(
    `Switchboard latency distributions (${engine}, ${info.date.slice(0, 10)})`,
    series,
  );
  writeFileSync(join(outDir, `${stem}-latency.svg`), chart);
  log(`wrote bench-results/${stem}.json and ${stem}-latency.svg`);
} finally {
  await store?.close();
  await receiver.stop();
  await place.drop();
}
