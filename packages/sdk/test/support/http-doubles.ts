// Small node:http servers on 127.0.0.1 for the client's tests: a stub that answers as told, a proxy
// that fails on purpose before handing requests to the real server, and a webhook receiver.

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A request as one of the doubles received it. */
export interface SeenRequest {
  method: string;
  /** Path and query, exactly as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** `performance.now()` on arrival, to measure waits between attempts. */
  at: number;
}

/** A running double: its base URL, what it saw, and how to stop it. */
export interface Double {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function shut(server: Server): Promise<void> {
  // Hanging responses would keep close() waiting forever.
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** A server that records every request and answers with `handler`. */
export async function startStub(
  handler: (req: SeenRequest, res: ServerResponse) => void | Promise<void>,
): Promise<Double> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const at = performance.now();
    readBody(req)
      .then((body) => {
        const seen = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body,
          at,
        };
        requests.push(seen);
        return handler(seen, res);
      })
      // A failing double must show up as a failed request, never as an unhandled rejection.
      .catch(() => res.socket?.destroy());
  });
  const url = await listen(server);
  return { url, requests, close: () => shut(server) };
}

/** What the proxy does with one request. */
export type Fault =
  /** Answers with this status (and headers) instead of the server; after it, if `forward`. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; forward?: boolean }
  /** Destroys the socket without an answer; after the server handled it, if `forward`. */
  | { kind: 'drop'; forward?: boolean }
  /** Never answers; after the server handled it, if `forward`. */
  | { kind: 'hang'; forward?: boolean };

/** A proxy in front of the real server that applies `faults` in order, then passes requests on. */
export interface FaultyProxy extends Double {
  /** Consumed one per request; when empty, requests reach the server untouched. */
  faults: Fault[];
  /** Answers of the real server to requests the proxy forwarded, in order. */
  forwarded: { status: number; body: string }[];
}

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'keep-alive']);

/** Starts a proxy to `upstream` (the real server's origin) on a port of its own. */
export async function startFaultyProxy(upstream: string): Promise<FaultyProxy> {
  const faults: Fault[] = [];
  const forwarded: { status: number; body: string }[] = [];

  async function forward(req: SeenRequest) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_HEADERS.has(name) && typeof value === 'string') headers.set(name, value);
    }
    const response = await fetch(upstream + req.url, {
      method: req.method,
      headers,
      body: req.body === '' ? undefined : req.body,
    });
    const body = await response.text();
    forwarded.push({ status: response.status, body });
    return { status: response.status, headers: response.headers, body };
  }

  const stub = await startStub(async (req, res) => {
    const fault = faults.shift();
    if (fault === undefined) {
      const answer = await forward(req);
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'request-id', 'retry-after', 'idempotent-replayed']) {
        const value = answer.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      res.writeHead(answer.status, headers);
      res.end(answer.body);
      return;
    }
    if (fault.forward) await forward(req);
    if (fault.kind === 'drop') res.socket?.destroy();
    if (fault.kind === 'status') {
      const type = fault.status === 429 ? 'rate_limited' : 'service_unavailable';
      sendJson(
        res,
        fault.status,
        { error: { type, message: 'Injected by the test proxy.' } },
        {
          'request-id': 'req_proxy',
          ...fault.headers,
        },
      );
    }
  });
  return { ...stub, faults, forwarded };
}

/** A webhook receiver: records deliveries and answers 200. */
export type Receiver = Double;

/** Starts a webhook receiver on 127.0.0.1. */
export function startReceiver(): Promise<Receiver> {
  return startStub((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
}

/** Polls `probe` until it returns something other than `undefined`, a bounded number of times. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let i = 0; i < Math.ceil(timeoutMs / 20) + 1; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() >= deadline) break;
    await sleep(20);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
