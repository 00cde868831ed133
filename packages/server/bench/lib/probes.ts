// End-to-end latencies measured from the orchestrator: POST → the message.delivered webhook
// (at the receiver process) and POST → the inbox WebSocket push, at a steady, moderate rate.
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Receiver } from './processes.ts';

const now = () => performance.timeOrigin + performance.now();

/** The probes' connections, kept alive from one probe's sends to the next's. */
const agent = new Agent({ keepAlive: true });
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A small JSON client for the service's API, on `node:http` with kept-alive
 * connections. The probes share the machine's cores with the service and the
 * database, and their client's cost is added to the latency they measure: `fetch`
 * took ~0.5 ms of CPU more per request than this, and at the webhook probe's 200
 * sends/s this process used a third of a core.
 */
export function api(url: string, key: string) {
  return (method: string, path: string, body?: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        `${url}${path}`,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            ...(payload === undefined
              ? {}
              : {
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(payload),
                }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) >= 300) {
              reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      // A service that stops answering fails the probe instead of holding the bench.
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS} ms`)),
      );
      req.on('error', reject);
      req.end(payload);
    });
}

/** Sends `count` messages at `perSecond`, each to its own recipient, and returns when each was sent. */
async function paced(
  count: number,
  perSecond: number,
  send: (i: number) => Promise<string>,
  sentAt: Map<string, number>,
): Promise<void> {
  const started = now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - now();
    if (wait >= 1) await sleep(wait);
    const t0 = now();
    inFlight.push(send(i).then((id) => void sentAt.set(id, t0)));
  }
  await Promise.all(inFlight);
}

/** Waits until `done()` or `timeoutMs`, polling every 50 ms. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = now() + timeoutMs;
  while (!done() && now() < deadline) await sleep(50);
}

/** Latencies of a probe's sends, and how many never arrived. */
export interface Timed {
  latencies: number[];
  missing: number;
}

/** What a probe reports: its measured sends, and apart, those of its warm-up. */
export interface Probed extends Timed {
  /** The sends of the first `warmUpSeconds`, at the same rate: not what the target judges. */
  warmUp: Timed;
}

/** The options every probe takes. */
interface ProbeOptions {
  url: string;
  key: string;
  from: string;
  count: number;
  perSecond: number;
  /**
   * Seconds of the same sends first, timed and reported apart. The loads start each
   * server with a warm-up; the probes' paths (a delivery's webhook, a push) run for
   * the first time here, and their first seconds measure V8 compiling them.
   */
  warmUpSeconds?: number;
}

/**
 * Sends `count` messages at `perSecond` (recipient `to` + four digits, body `body` + a
 * number, from the `first`th on) and times each until `arrivedAt` has its id, waiting
 * at most `timeoutMs`.
 */
async function timeSends(
  options: ProbeOptions,
  arrivedAt: Map<string, number>,
  probe: { to: string; body: string; timeoutMs: number },
  count: number,
  first: number,
): Promise<Timed> {
  const sentAt = new Map<string, number>();
  const call = api(options.url, options.key);
  await paced(
    count,
    options.perSecond,
    async (n) => {
      const i = first + n;
      return (
        await call('POST', '/v1/messages', {
          from: options.from,
          to: `${probe.to}${String(i % 10_000).padStart(4, '0')}`,
          body: `${probe.body} ${i}`,
        })
      ).id as string;
    },
    sentAt,
  );
  await until(() => [...sentAt.keys()].every((id) => arrivedAt.has(id)), probe.timeoutMs);
  const latencies = [...sentAt].flatMap(([id, t0]) =>
    arrivedAt.has(id) ? [arrivedAt.get(id)! - t0] : [],
  );
  return { latencies, missing: sentAt.size - latencies.length };
}

/** The warm-up's sends (see ProbeOptions.warmUpSeconds), then the measured ones. */
async function timeToArrival(
  options: ProbeOptions,
  arrivedAt: Map<string, number>,
  probe: { to: string; body: string; timeoutMs: number },
): Promise<Probed> {
  const warmUpCount = Math.round((options.warmUpSeconds ?? 0) * options.perSecond);
  const warmUp = await timeSends(options, arrivedAt, probe, warmUpCount, 0);
  return { ...(await timeSends(options, arrivedAt, probe, options.count, warmUpCount)), warmUp };
}

/**
 * POST → `message.delivered` webhook: with a zero sandbox delay and one endpoint
 * subscribed, the time from sending the request to the receiver reading the event.
 */
export async function webhookLatency(
  options: ProbeOptions & { receiver: Receiver },
): Promise<Probed> {
  const arrived = new Map<string, number>();
  options.receiver.onDelivered((id, at) => arrived.set(id, at));
  return timeToArrival(options, arrived, {
    to: '+1415888',
    body: 'Latency probe',
    timeoutMs: 30_000,
  });
}

/** Signs in to the softphone; returns the session cookie. */
export async function signIn(options: {
  url: string;
  email: string;
  password: string;
}): Promise<string> {
  const login = await fetch(`${options.url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: options.email, password: options.password }),
  });
  if (login.status !== 200)
    throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  return login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/**
 * POST → inbox push: opens /app/ws with a session cookie (`signIn`), and times
 * each send until its `message.created` push arrives.
 */
export async function pushLatency(options: ProbeOptions & { cookie: string }): Promise<Probed> {
  const { cookie } = options;
  const socket = new WebSocket(`${options.url.replace('http', 'ws')}/app/ws?mode=test`, {
    headers: { cookie },
  });
  const pushedAt = new Map<string, number>();
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const at = now();
      const push = JSON.parse(data.toString('utf8')) as { type: string; message?: { id: string } };
      if (push.type === 'hello') resolve();
      if (push.type === 'message.created' && push.message) pushedAt.set(push.message.id, at);
    });
    socket.on('error', reject);
  });
  const timed = await timeToArrival(options, pushedAt, {
    to: '+1415999',
    body: 'Push probe',
    timeoutMs: 10_000,
  });
  socket.close();
  return timed;
}

/** Waits until the receiver has counted `expected` deliveries (or `timeoutMs`); returns deliveries/s. */
export async function drainRate(
  receiver: Receiver,
  expected: number,
  timeoutMs: number,
): Promise<{ delivered: number; perSecond: number }> {
  const deadline = now() + timeoutMs;
  let stats = await receiver.stats();
  while (stats.count < expected && now() < deadline) {
    await sleep(100);
    stats = await receiver.stats();
  }
  const span = ((stats.lastAt ?? 0) - (stats.firstAt ?? 0)) / 1000;
  return { delivered: stats.count, perSecond: span > 0 ? (stats.count - 1) / span : 0 };
}
