// The shell the bench's bare servers share (reference-server.ts, floor-server.ts): node:http
// on one thread, the JSON body parsed, and group commit: every send accepted in one
// event-loop turn (and while a commit runs) is committed together, and each is answered
// 201 only after that commit. What a send stores is the server's own `accept` and `commit`.
import { createServer, type ServerResponse } from 'node:http';

/** A parsed request body, as the bench's POST load sends it (bench/wrk/post.lua). */
export interface SendInput {
  from?: unknown;
  to?: unknown;
  body?: unknown;
}

export interface BareSendServer<Row> {
  /** The rows of a send, or the HTTP status it is refused with. */
  accept(input: SendInput): Row | number;
  /** Stores a batch of sends durably; answered only once it resolves. */
  commit(rows: Row[]): Promise<void>;
  /**
   * Whether `commit` groups sends itself (a store's write queue): it is then called
   * with each send as it is accepted, any number at once, instead of with a batch.
   */
  groupsItself?: boolean;
  /** The answer's body for a stored send. */
  present(row: Row): unknown;
}

interface Pending<Row> {
  res: ServerResponse;
  row: Row;
}

/** Serves POSTs of sends on 127.0.0.1:`port` and prints `{"port":N}` once it listens. */
export function serveBareSends<Row>(port: number, server: BareSendServer<Row>): void {
  let pending: Pending<Row>[] = [];
  let running = false;

  /** Commits sends and answers each: 201 once committed. */
  async function answer(batch: Pending<Row>[]): Promise<void> {
    try {
      await server.commit(batch.map((p) => p.row));
      for (const { res, row } of batch) {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify(server.present(row)));
      }
    } catch (error) {
      for (const { res } of batch) res.writeHead(500).end(String(error));
    }
  }

  async function flush(): Promise<void> {
    if (running || pending.length === 0) return;
    running = true;
    const batch = pending;
    pending = [];
    await answer(batch);
    running = false;
    if (pending.length > 0) setImmediate(flush);
  }

  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let input: SendInput;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SendInput;
      } catch {
        return res.writeHead(400).end();
      }
      const row = server.accept(input);
      if (typeof row === 'number') return res.writeHead(row).end();
      if (server.groupsItself) return void answer([{ res, row }]);
      pending.push({ res, row });
      if (pending.length === 1) setImmediate(flush);
    });
  });
  http.keepAliveTimeout = 60_000;
  http.listen(port, '127.0.0.1', () => {
    const address = http.address();
    process.stdout.write(
      `${JSON.stringify({ port: typeof address === 'object' && address?.port })}\n`,
    );
  });
  process.on('SIGTERM', () => http.close(() => process.exit(0)));
}
