// Turns one run's measurements into the table rows, the targets of the issue and the
// series of the latency chart.
import { fmt, type Row, type Series, type Target } from './report.ts';
import type { DiskSyncs } from './disk.ts';
import { percentilesOf, type LoadResult } from './wrk.ts';

/** Everything one run measured. */
export interface Measurements {
  connections: number;
  messages: number;
  endpoints: number;
  /** The POST loads of the rounds, the reference's and Switchboard's taking turns. */
  refPosts: LoadResult[];
  sbPosts: LoadResult[];
  /**
   * The floor's POST loads (floor-server.ts), one per round between the reference's and
   * Switchboard's; none in results written before the floor was measured.
   */
  floorPosts?: LoadResult[];
  /** The GET loads of the rounds, on 10 k stored messages and on `messages`. */
  gets10k: LoadResult[];
  gets1m: LoadResult[];
  /** The fan-outs of the rounds, each followed by the reference loop's. */
  fanOuts: { perSecond: number }[];
  refLoops: { perSecond: number }[];
  /**
   * The probes' sends after their warm-up, and apart, the warm-up's (see
   * ProbeOptions.warmUpSeconds); none in results written before probes warmed up.
   */
  toWebhook: ProbeLatencies;
  toPush: ProbeLatencies;
  /** Peak RSS under the loads (every phase but the sign-in), MiB. */
  rss: number;
  /** Peak RSS while one softphone user signs in (a memory-hard password hash), MiB. */
  signInRss: number;
  /** The longest of the rounds' waits for the POST load's carrier side. */
  drainSeconds: number;
  seedSeconds: number;
  /**
   * The disk's flushes timed with nothing else running (disk.ts); none in results
   * written before the disk was measured.
   */
  disk?: DiskSyncs;
}

/** A probe's latencies (ms) and the sends that never arrived. */
interface ProbeLatencies {
  latencies: number[];
  missing: number;
  warmUp?: { latencies: number[]; missing: number };
}

/** The middle value (of an even count, the lower of the two in the middle). */
export function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Each round's ratio, Switchboard to the reference it took turns with. */
function ratios(ours: { perSecond: number }[], theirs: { perSecond: number }[]): number[] {
  return ours.map((r, i) => r.perSecond / theirs[i]!.perSecond);
}

/**
 * The rounds of a load as one: the medians of its rate, latencies and CPU, its errors
 * summed, and the latency distribution of the round whose p99 is the median.
 */
export function mergeRounds(runs: LoadResult[]): LoadResult {
  const p99 = median(runs.map((r) => r.p99));
  const middle = runs.find((r) => r.p99 === p99)!;
  const sum = (pick: (r: LoadResult) => Record<string, number>) => {
    const total: Record<string, number> = {};
    for (const r of runs) {
      for (const [k, n] of Object.entries(pick(r))) total[k] = (total[k] ?? 0) + n;
    }
    return total;
  };
  return {
    ...middle,
    requests: runs.reduce((a, r) => a + r.requests, 0),
    seconds: runs.reduce((a, r) => a + r.seconds, 0),
    perSecond: median(runs.map((r) => r.perSecond)),
    p50: median(runs.map((r) => r.p50)),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    errorKinds: sum((r) => r.errorKinds),
    failedStatuses: sum((r) => r.failedStatuses),
    firstFailure: runs.find((r) => r.firstFailure)?.firstFailure ?? '',
    cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest)),
  };
}

/** A ratio as a percentage: "29 %". */
function percent(value: number): string {
  return `${(value * 100).toFixed(0)} %`;
}

/** An error count, with its kinds when there are any ("7 (status 7)"). */
function errorsOf(r: LoadResult): string {
  const kinds = Object.entries(r.errorKinds).map(([kind, n]) =>
    kind === 'status' && Object.keys(r.failedStatuses).length > 0
      ? Object.entries(r.failedStatuses)
          .map(([status, count]) => `HTTP ${status} × ${count}`)
          .join(', ')
      : `${kind} ${n}`,
  );
  return kinds.length > 0 ? `${r.errors} (${kinds.join(', ')})` : String(r.errors);
}

/** The table, the targets and the chart's series of a run. */
export function summarize(m: Measurements): { rows: Row[]; targets: Target[]; series: Series[] } {
  const { toWebhook, toPush, rss } = m;
  const get10k = mergeRounds(m.gets10k);
  const get1m = mergeRounds(m.gets1m);
  const refPost = mergeRounds(m.refPosts);
  const sbPost = mergeRounds(m.sbPosts);
  const postRatios = ratios(m.sbPosts, m.refPosts);
  const fanOutRatios = ratios(m.fanOuts, m.refLoops);
  const postRatio = median(postRatios);
  const fanOutRatio = median(fanOutRatios);
  const { drainSeconds, seedSeconds } = m;
  const CONNECTIONS = m.connections;
  const MESSAGES = m.messages;
  const FANOUT_ENDPOINTS = m.endpoints;
  const webhookPs = percentilesOf(toWebhook.latencies);
  const pushPs = percentilesOf(toPush.latencies);
  // A warm-up's latencies are not judged, but a send of it that never arrived is lost all the same.
  const webhookMissing = toWebhook.missing + (toWebhook.warmUp?.missing ?? 0);
  const p = (ps: [number, number][], q: number) => ps.find(([x]) => x === q)?.[1] ?? Number.NaN;
  const ms = (v: number) => fmt(v, ' ms', v < 10 ? 2 : 1);
  const p50p99 = (latencies: number[]) => {
    const ps = percentilesOf(latencies);
    return `${ms(p(ps, 50))} / ${ms(p(ps, 99))}`;
  };
  /** A probe's row, and its warm-up's below it where it had one. */
  const probeRows = (label: string, probe: ProbeLatencies): Row[] => [
    { name: `${label} p50 / p99`, value: p50p99(probe.latencies) },
    ...(probe.warmUp && probe.warmUp.latencies.length > 0
      ? [
          {
            name: `${label}, its warm-up (not judged) p50 / p99`,
            value: p50p99(probe.warmUp.latencies),
          },
        ]
      : []),
  ];
  const stored = fmt(MESSAGES / 1e6, ' M', MESSAGES < 1e6 ? 2 : 0);
  /** A load's rows; with the reference's load and the median of the rounds' ratios to it. */
  const loadRows = (label: string, r: LoadResult, ref?: LoadResult, refRatio?: number): Row[] => [
    {
      name: `${label}: requests/s`,
      value: fmt(r.perSecond, ''),
      ...(ref ? { reference: fmt(ref.perSecond, ''), ratio: percent(refRatio!) } : {}),
    },
    {
      name: `${label}: p50 / p99`,
      value: `${ms(r.p50)} / ${ms(r.p99)}`,
      ...(ref ? { reference: `${ms(ref.p50)} / ${ms(ref.p99)}` } : {}),
    },
    {
      name: `${label}: errors`,
      value: errorsOf(r),
      ...(ref ? { reference: errorsOf(ref) } : {}),
    },
    {
      name: `${label}: server CPU per request`,
      value: fmt(r.cpuUsPerRequest, ' µs'),
      ...(ref ? { reference: fmt(ref.cpuUsPerRequest, ' µs') } : {}),
    },
  ];
  const floorPosts = m.floorPosts ?? [];
  const floorRows: Row[] =
    floorPosts.length === 0
      ? []
      : [
          ...loadRows(
            "POST, the floor (Switchboard's writes, bare server)",
            mergeRounds(floorPosts),
            refPost,
            median(ratios(floorPosts, m.refPosts)),
          ),
          {
            name: 'POST: Switchboard to its floor, each round',
            value: ratios(m.sbPosts, floorPosts).map(percent).join(', '),
          },
        ];
  const rows: Row[] = [
    ...loadRows(`POST /v1/messages (${CONNECTIONS} conn.)`, sbPost, refPost, postRatio),
    {
      name: 'POST /v1/messages: each round, ratio / p99',
      value: m.sbPosts.map((r, i) => `${percent(postRatios[i]!)} / ${ms(r.p99)}`).join(', '),
    },
    ...floorRows,
    ...loadRows('GET /v1/messages/{id}, 10 k stored', get10k),
    ...loadRows(`GET /v1/messages/{id}, ${stored} stored`, get1m),
    {
      name: 'GET /v1/messages/{id}: each round, p99 at 10 k / at ' + stored,
      value: m.gets10k.map((r, i) => `${ms(r.p99)} / ${ms(m.gets1m[i]!.p99)}`).join(', '),
    },
    {
      name: `webhook deliveries/s (${FANOUT_ENDPOINTS} endpoints)`,
      value: fmt(median(m.fanOuts.map((r) => r.perSecond)), ''),
      reference: fmt(median(m.refLoops.map((r) => r.perSecond)), ''),
      ratio: percent(fanOutRatio),
    },
    { name: 'webhook deliveries: each round, ratio', value: fanOutRatios.map(percent).join(', ') },
    ...probeRows('POST → message.delivered webhook', toWebhook),
    ...probeRows('POST → inbox WebSocket push', toPush),
    { name: 'peak RSS of the service under load', value: fmt(rss, ' MB') },
    {
      name: 'peak RSS during one softphone sign-in (scrypt, 32 MiB)',
      value: fmt(m.signInRss, ' MB'),
    },
    ...(m.disk
      ? [
          {
            name: `the disk: 8 kB flushed (fdatasync) ${fmt(m.disk.count, '')} times, p50 / p99 / max`,
            value: `${ms(p(m.disk.percentiles, 50))} / ${ms(p(m.disk.percentiles, 99))} / ${ms(m.disk.maxMs)}`,
          },
          { name: 'the disk: flushes over 100 ms', value: fmt(m.disk.stalls, '') },
        ]
      : []),
    {
      name: 'backlog of the POST load delivered after (longest round)',
      value: fmt(drainSeconds, ' s', 1),
    },
    {
      name: `seeding ${fmt((MESSAGES - 10_000) / 1e6, ' M', 2)} messages through the store`,
      value: fmt(seedSeconds, ' s', 1),
    },
  ];
  const targets: Target[] = [
    {
      name: 'POST ≥ 70 % of the reference',
      measured: percent(postRatio),
      met: postRatio >= 0.7,
    },
    {
      name: 'POST p99 < 25 ms, no errors',
      measured: `${ms(sbPost.p99)}, ${sbPost.errors} errors`,
      met: sbPost.p99 < 25 && sbPost.errors === 0,
    },
    {
      name: 'webhook deliveries ≥ 70 % of the bare loop',
      measured: percent(fanOutRatio),
      met: fanOutRatio >= 0.7,
    },
    {
      name: 'POST → delivered webhook p99 < 100 ms',
      measured: `${ms(p(webhookPs, 99))}, ${webhookMissing} missing`,
      met: p(webhookPs, 99) < 100 && webhookMissing === 0,
    },
    {
      name: 'GET p99 at 1 M within 1.5× of 10 k',
      measured: `${(get1m.p99 / get10k.p99).toFixed(2)}×`,
      met: get1m.p99 <= 1.5 * get10k.p99,
    },
    { name: 'RSS under load < 200 MB', measured: fmt(rss, ' MB'), met: rss < 200 },
  ];
  const series: Series[] = [
    { name: 'POST, Switchboard', percentiles: sbPost.percentiles },
    { name: 'POST, reference', percentiles: refPost.percentiles },
    ...(floorPosts.length > 0
      ? [{ name: 'POST, the floor', percentiles: mergeRounds(floorPosts).percentiles }]
      : []),
    { name: 'GET, 10 k stored', percentiles: get10k.percentiles },
    { name: `GET, ${stored} stored`, percentiles: get1m.percentiles },
    { name: 'POST → delivered webhook', percentiles: webhookPs },
    { name: 'POST → WebSocket push', percentiles: pushPs },
  ];
  return { rows, targets, series };
}
