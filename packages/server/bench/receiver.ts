// The bench's webhook receiver, in its own process so it never competes with the
// orchestrator's event loop: answers every POST with 200 once the body is read, counts
// deliveries per path, and reports the arrival time of each `message.delivered` on
// /latency to the parent (the orchestrator matches it to the moment it sent the message).
//   spawned by bench.ts with an IPC channel; prints {"port":N} when listening.
import { createServer } from 'node:http';

/** What the parent asks over IPC. */
type Command = { type: 'stats' } | { type: 'reset' };

/** Counts and first/last arrival times since the last reset. */
export interface ReceiverStats {
  count: number;
  firstAt: number | null;
  lastAt: number | null;
  byPath: Record<string, number>;
}

const now = () => performance.timeOrigin + performance.now();
let stats: ReceiverStats = { count: 0, firstAt: null, lastAt: null, byPath: {} };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    const path = req.url ?? '/';
    stats.count++;
    stats.firstAt ??= at;
    stats.lastAt = at;
    stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;
    if (path === '/latency') {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        data: { id: string };
      };
      process.send?.({ type: 'delivered', event: event.type, messageId: event.data.id, at });
    }
  });
});
server.keepAliveTimeout = 60_000;

process.on('message', (command: Command) => {
  if (command.type === 'reset') stats = { count: 0, firstAt: null, lastAt: null, byPath: {} };
  process.send?.({ type: 'stats', stats });
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address?.port })}\n`,
  );
});
