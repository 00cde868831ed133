// A real webhook receiver for tests: a node:http (or node:https) server on
// 127.0.0.1 that records every request byte for byte and answers as the test
// programs it, so deliveries are observed exactly as a customer's server sees them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, type WaitOptions } from './messaging.ts';

/** One request as it arrived. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received: signatures are checked over these bytes. */
  raw: Buffer;
  /** `raw` decoded as UTF-8. */
  text: string;
  /** Wall-clock time the request was complete. */
  receivedAt: number;
}

/** How to answer one request; every field is optional (200, empty body, at once). */
export interface Answer {
  status?: number;
  /** Milliseconds to wait before answering (a slow or hanging receiver). */
  delayMs?: number;
  /** Sent as the `Retry-After` header. */
  retryAfter?: string;
  /** Sent as the `Location` header (for redirects). */
  location?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Sends the headers at once and then `body` one byte every `dripMs` (a body that trickles). */
  dripMs?: number;
}

/** Decides the answer; `index` counts the requests to the same path, from 0. */
export type Responder = (request: ReceivedRequest, index: number) => Answer;

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`, without a trailing slash. */
  url: string;
  port: number;
  /** Every request so far, in arrival order. */
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (a refused delivery never opens one). */
  connections(): number;
  /** The requests to one path. */
  at(path: string): ReceivedRequest[];
  /** Sets how requests to `path` are answered (every path not set answers 200). */
  on(path: string, answer: Answer | Responder): void;
  /** Waits (bounded) until `path` has received at least `count` requests and returns them. */
  waitFor(path: string, count: number, options?: WaitOptions): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Options of {@link startReceiver}. */
export interface ReceiverOptions {
  /** Listen on this port (for a receiver that comes up where an endpoint already points). */
  port?: number;
  /** Serve HTTPS with this certificate and key. */
  tls?: { cert: string; key: string };
}

/** Starts a receiver on 127.0.0.1. */
export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const answers = new Map<string, Answer | Responder>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;

  const drip = (res: ServerResponse, body: Buffer, everyMs: number) => {
    res.flushHeaders();
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || sent >= body.length) {
        clearInterval(timer);
        timers.delete(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(body.subarray(sent, ++sent));
    }, everyMs);
    timers.add(timer);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      const path = req.url ?? '/';
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path,
        headers: req.headers,
        raw,
        text: raw.toString('utf8'),
        receivedAt: Date.now(),
      };
      const index = requests.filter((r) => r.path === path).length;
      requests.push(request);
      const programmed = answers.get(path) ?? {};
      const answer = typeof programmed === 'function' ? programmed(request, index) : programmed;
      const send = () => {
        if (res.destroyed) return;
        const headers: Record<string, string> = { ...answer.headers };
        if (answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter;
        if (answer.location !== undefined) headers.location = answer.location;
        res.writeHead(answer.status ?? 200, headers);
        if (answer.dripMs) drip(res, Buffer.from(answer.body ?? ''), answer.dripMs);
        else res.end(answer.body ?? '');
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, answer.delayMs);
        timers.add(timer);
      } else {
        send();
      }
    });
  };

  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle)
    : createHttpServer(handle);
  // Counted at the TCP level, so a TLS handshake or a request never sent still shows.
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const at = (path: string) => requests.filter((r) => r.path === path);
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    at,
    on(path, answer) {
      answers.set(path, answer);
    },
    waitFor(path, count, wait = { timeoutMs: 10_000, intervalMs: 10 }) {
      return waitFor(
        async () => {
          const seen = at(path);
          return seen.length >= count ? seen : undefined;
        },
        `${count} request(s) to ${path} (got ${at(path).length})`,
        wait,
      );
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Requests still held by a delayed answer are cut off, so closing never waits for them.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A throwaway certificate for 127.0.0.1 and localhost, and its key, both PEM. */
export interface TestCertificate {
  cert: string;
  key: string;
}

/**
 * Makes a self-signed certificate with `openssl` in a temporary directory
 * (removed at once), valid one day for IP 127.0.0.1 and DNS localhost. Made
 * per run, so no private key is ever kept in the repository.
 */
export function makeTestCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-receiver-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost'],
        ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-days', '1'],
        ...['-keyout', keyPath, '-out', certPath],
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts an HTTPS receiver with a fresh self-signed certificate; pass `ca` as `webhookCa`. */
export async function startHttpsReceiver(
  certificate: TestCertificate = makeTestCertificate(),
): Promise<Receiver & { ca: string }> {
  const receiver = await startReceiver({ tls: certificate });
  return Object.assign(receiver, { ca: certificate.cert });
}
