// The load generator: wrk (Debian's `wrk` package), a separate C process, so the load
// costs the machine little CPU and nothing in the measured server's process.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cpuMs } from './processes.ts';

/** Latency at a percentile: [percentile, milliseconds]. */
export type Percentiles = [number, number][];

/** One wrk run against one server. */
export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  /** Connect, read, write and timeout errors plus answers outside 2xx/3xx. */
  errors: number;
  /** The same by kind (wrk's `connect`, `read`, `write`, `status`, `timeout`), nonzero ones only. */
  errorKinds: Record<string, number>;
  /** Answers of 400 and up by HTTP status, and the start of the first one's body (Switchboard's loads). */
  failedStatuses: Record<string, number>;
  firstFailure: string;
  p50: number;
  p99: number;
  max: number;
  percentiles: Percentiles;
  /** CPU time the server process used per request, in microseconds. */
  cpuUsPerRequest: number;
}

/** True when wrk is installed. */
export function haveWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** At percentile `p` of a wrk result, in ms. */
function at(percentiles: Percentiles, p: number): number {
  return percentiles.find(([q]) => q === p)?.[1] ?? Number.NaN;
}

/**
 * Runs wrk with one of the Lua scripts in bench/wrk for `seconds` with
 * `connections` keep-alive connections on one thread, while measuring the CPU
 * time of the server process `serverPid`.
 */
export async function runWrk(options: {
  url: string;
  script: 'post.lua' | 'get.lua' | 'sendsms.lua';
  seconds: number;
  connections: number;
  serverPid: number;
  env: Record<string, string>;
  /** Seconds of the same load first, not measured, so the JIT and caches are warm. */
  warmUp?: number;
}): Promise<LoadResult> {
  if (options.warmUp) await runWrk({ ...options, seconds: options.warmUp, warmUp: 0 });
  // What earlier loads left dirty in the page cache is written out now, not by the kernel's
  // flusher during this load, where it slowed this server's fsyncs for an earlier one's work.
  spawnSync('sync');
  const script = join(import.meta.dirname, '..', 'wrk', options.script);
  const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s'];
  const cpuBefore = cpuMs(options.serverPid);
  const child = spawn('wrk', [...args, '-s', script, options.url], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  await new Promise((resolve) => child.on('close', resolve));
  const cpu = cpuMs(options.serverPid) - cpuBefore;
  const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk printed no result:\n${out}`);
  const raw = JSON.parse(line.slice('BENCH_JSON '.length)) as {
    requests: number;
    durationUs: number;
    errors: Record<string, number>;
    statuses: Record<string, number>;
    firstFailure: string;
    latencyUs: { max: number; percentiles: [number, number][] };
  };
  const percentiles: Percentiles = raw.latencyUs.percentiles
    .filter(([p]) => p < 100)
    .map(([p, us]) => [p, us / 1000]);
  const seconds = raw.durationUs / 1e6;
  return {
    requests: raw.requests,
    seconds,
    perSecond: raw.requests / seconds,
    errors: Object.values(raw.errors).reduce((a, b) => a + b, 0),
    errorKinds: Object.fromEntries(Object.entries(raw.errors).filter(([, n]) => n > 0)),
    failedStatuses: raw.statuses,
    firstFailure: raw.firstFailure,
    p50: at(percentiles, 50),
    p99: at(percentiles, 99),
    max: raw.latencyUs.max / 1000,
    percentiles,
    cpuUsPerRequest: raw.requests > 0 ? (cpu * 1000) / raw.requests : 0,
  };
}

/** Percentiles of a list of latencies in ms (for the probes measured in this process). */
export function percentilesOf(latencies: number[]): Percentiles {
  const sorted = latencies.toSorted((a, b) => a - b);
  const points = [1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9];
  if (sorted.length === 0) return [];
  return points.map((p) => [
    p,
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!,
  ]);
}
