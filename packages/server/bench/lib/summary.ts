// Turns one run's measurements into the table rows, the targets of the issue and the
// series of the latency chart.
import { fmt, ratio, type Row, type Series, type Target } from './report.ts';
import { percentilesOf, type LoadResult } from './wrk.ts';

/** Everything one run measured. */
export interface Measurements {
  connections: number;
  messages: number;
  endpoints: number;
  refPost: LoadResult;
  sbPost: LoadResult;
  get10k: LoadResult;
  get1m: LoadResult;
  fanOut: { perSecond: number };
  refLoop: { perSecond: number };
  toWebhook: { latencies: number[]; missing: number };
  toPush: { latencies: number[]; missing: number };
  /** Peak RSS under the loads (every phase but the sign-in), MiB. */
  rss: number;
  /** Peak RSS while one softphone user signs in (a memory-hard password hash), MiB. */
  signInRss: number;
  drainSeconds: number;
  seedSeconds: number;
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
  const { refPost, sbPost, get10k, get1m, fanOut, refLoop, toWebhook, toPush, rss } = m;
  const { drainSeconds, seedSeconds } = m;
  const CONNECTIONS = m.connections;
  const MESSAGES = m.messages;
  const FANOUT_ENDPOINTS = m.endpoints;
  const webhookPs = percentilesOf(toWebhook.latencies);
  const pushPs = percentilesOf(toPush.latencies);
  const p = (ps: [number, number][], q: number) => ps.find(([x]) => x === q)?.[1] ?? Number.NaN;
  const ms = (v: number) => fmt(v, ' ms', v < 10 ? 2 : 1);
  const loadRows = (label: string, r: LoadResult, ref?: LoadResult): Row[] => [
    {
      name: `${label}: requests/s`,
      value: fmt(r.perSecond, ''),
      ...(ref
        ? { reference: fmt(ref.perSecond, ''), ratio: ratio(r.perSecond, ref.perSecond) }
        : {}),
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
  const rows: Row[] = [
    ...loadRows(`POST /v1/messages (${CONNECTIONS} conn.)`, sbPost, refPost),
    ...loadRows('GET /v1/messages/{id}, 10 k stored', get10k),
    ...loadRows(
      `GET /v1/messages/{id}, ${fmt(MESSAGES / 1e6, ' M', MESSAGES < 1e6 ? 2 : 0)} stored`,
      get1m,
    ),
    {
      name: `webhook deliveries/s (${FANOUT_ENDPOINTS} endpoints)`,
      value: fmt(fanOut.perSecond, ''),
      reference: fmt(refLoop.perSecond, ''),
      ratio: ratio(fanOut.perSecond, refLoop.perSecond),
    },
    {
      name: 'POST → message.delivered webhook p50 / p99',
      value: `${ms(p(webhookPs, 50))} / ${ms(p(webhookPs, 99))}`,
    },
    {
      name: 'POST → inbox WebSocket push p50 / p99',
      value: `${ms(p(pushPs, 50))} / ${ms(p(pushPs, 99))}`,
    },
    { name: 'peak RSS of the service under load', value: fmt(rss, ' MB') },
    {
      name: 'peak RSS during one softphone sign-in (scrypt, 32 MiB)',
      value: fmt(m.signInRss, ' MB'),
    },
    { name: 'backlog of the POST load delivered after', value: fmt(drainSeconds, ' s', 1) },
    {
      name: `seeding ${fmt((MESSAGES - 10_000) / 1e6, ' M', 2)} messages through the store`,
      value: fmt(seedSeconds, ' s', 1),
    },
  ];
  const targets: Target[] = [
    {
      name: 'POST ≥ 70 % of the reference',
      measured: ratio(sbPost.perSecond, refPost.perSecond),
      met: sbPost.perSecond >= 0.7 * refPost.perSecond,
    },
    {
      name: 'POST p99 < 25 ms, no errors',
      measured: `${ms(sbPost.p99)}, ${sbPost.errors} errors`,
      met: sbPost.p99 < 25 && sbPost.errors === 0,
    },
    {
      name: 'webhook deliveries ≥ 70 % of the bare loop',
      measured: ratio(fanOut.perSecond, refLoop.perSecond),
      met: fanOut.perSecond >= 0.7 * refLoop.perSecond,
    },
    {
      name: 'POST → delivered webhook p99 < 100 ms',
      measured: `${ms(p(webhookPs, 99))}, ${toWebhook.missing} missing`,
      met: p(webhookPs, 99) < 100 && toWebhook.missing === 0,
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
    { name: 'GET, 10 k stored', percentiles: get10k.percentiles },
    {
      name: `GET, ${fmt(MESSAGES / 1e6, ' M', MESSAGES < 1e6 ? 2 : 0)} stored`,
      percentiles: get1m.percentiles,
    },
    { name: 'POST → delivered webhook', percentiles: webhookPs },
    { name: 'POST → WebSocket push', percentiles: pushPs },
  ];
  return { rows, targets, series };
}
