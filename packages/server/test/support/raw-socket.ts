import { connect, type Socket } from 'node:net';

/** A raw TCP connection to a test server, recording all it receives and how it ended. */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Settles when the connection is closed, with the error that closed it (`ECONNRESET`…), if any. */
  closed: Promise<{ error: string | null }>;
  /** Whether the connection is closed already. */
  isClosed(): boolean;
}

/** Opens a TCP connection to the host and port of `url` (a listening test server). */
export async function openConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  let received = '';
  let error: string | null = null;
  let isClosed = false;
  socket.setEncoding('utf8').on('data', (d: string) => (received += d));
  socket.on('error', (e: Error & { code?: string }) => (error ??= e.code ?? e.message));
  const closed = new Promise<{ error: string | null }>((resolve) =>
    socket.on('close', () => {
      isClosed = true;
      resolve({ error });
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => received, closed, isClosed: () => isClosed };
}

/**
 * Waits for `connection` to close, at most `ms`; true if it did. The connection is
 * destroyed when it did not, so no test leaves one open.
 */
export async function closesWithin(connection: RawConnection, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const closed = await Promise.race([connection.closed.then(() => true as const), timedOut]);
  clearTimeout(timer);
  if (!closed) connection.socket.destroy();
  return closed;
}

/** One raw HTTP/1.1 response: its status, lower-cased headers and JSON body (null if none). */
export interface ParsedResponse {
  status: number;
  headers: Map<string, string>;
  body: any;
}

/** Parses the first response of `raw` (a response with a Content-Length body). */
export function parseResponse(raw: string): ParsedResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const i = line.indexOf(':');
      return [line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim()] as const;
    }),
  );
  const length = Number(headers.get('content-length') ?? 0);
  const text = end === -1 ? '' : raw.slice(end + 4, end + 4 + length);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body };
}

/** Whether `raw` holds a whole response: its head and as much body as its Content-Length says. */
function isWholeResponse(raw: string): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end))?.[1];
  return raw.length - (end + 4) >= Number(length ?? 0);
}

/**
 * Writes `request` on `connection` and waits (at most `ms`) for the whole response
 * that follows; null if the connection closed, or nothing came, first.
 */
export function exchange(
  connection: RawConnection,
  request: string,
  ms = 10_000,
): Promise<ParsedResponse | null> {
  const from = connection.received().length;
  return new Promise((resolve) => {
    const settle = (response: ParsedResponse | null) => {
      clearTimeout(timer);
      connection.socket.off('data', onData);
      connection.socket.off('close', onClose);
      resolve(response);
    };
    const onData = () => {
      const raw = connection.received().slice(from);
      if (isWholeResponse(raw)) settle(parseResponse(raw));
    };
    const onClose = () => settle(null);
    const timer = setTimeout(() => settle(null), ms);
    connection.socket.on('data', onData);
    connection.socket.on('close', onClose);
    if (connection.isClosed()) settle(null);
    else connection.socket.write(request);
  });
}

/** A GET of `path` as raw HTTP/1.1 text, keeping the connection open. */
export function rawGet(path: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`GET ${path} HTTP/1.1`, 'Host: localhost', ...lines, '', ''].join('\r\n');
}
