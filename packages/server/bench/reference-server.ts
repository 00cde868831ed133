// The bench's reference: the least a durable send can cost in Node. A bare node:http server
// that parses the JSON body and, with group commit, inserts one message row and one outbox
// row per request, answering 201 only after the commit (synchronous=FULL on SQLite, a
// synchronous commit on PostgreSQL). No framework, no auth, no validation beyond shape.
//   node reference-server.ts PORT DATA_DIR [postgres://…]
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';

const [port = '0', dataDir = '.', databaseUrl] = process.argv.slice(2);
const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS ref_messages (id TEXT PRIMARY KEY, from_phone TEXT NOT NULL, to_phone TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, created_at BIGINT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS ref_outbox (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, type TEXT NOT NULL, created_at BIGINT NOT NULL)',
];
interface Row {
  id: string;
  from: string;
  to: string;
  body: string;
  createdAt: number;
}
interface Pending {
  res: ServerResponse;
  row: Row;
}

let seq = 0;
// Time-ordered ids, as Switchboard's: the time in fixed-width base36, then a counter.
const newId = (prefix: string, now: number) =>
  `${prefix}_${now.toString(36).padStart(9, '0')}${(seq++).toString(36).padStart(8, '0')}`;

/** Commits a batch: SQLite synchronously on one connection, PostgreSQL in one transaction. */
async function openCommitter(): Promise<(rows: Row[]) => Promise<void>> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (const statement of SCHEMA) await client.query(statement);
    return async (rows) => {
      const m = rows.flatMap((r) => [r.id, r.from, r.to, r.body, 'queued', r.createdAt]);
      const o = rows.flatMap((r) => [
        newId('evt', r.createdAt),
        r.id,
        'message.created',
        r.createdAt,
      ]);
      const values = (width: number) =>
        rows.map((_, i) => `(${Array.from({ length: width }, (_, j) => `$${i * width + j + 1}`)})`);
      await client.query('BEGIN');
      await client.query(`INSERT INTO ref_messages VALUES ${values(6).join(',')}`, m);
      await client.query(`INSERT INTO ref_outbox VALUES ${values(4).join(',')}`, o);
      await client.query('COMMIT');
    };
  }
  const db = new DatabaseSync(join(dataDir, 'reference.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  for (const statement of SCHEMA) db.exec(statement);
  const insertMessage = db.prepare('INSERT INTO ref_messages VALUES (?, ?, ?, ?, ?, ?)');
  const insertOutbox = db.prepare('INSERT INTO ref_outbox VALUES (?, ?, ?, ?)');
  return async (rows) => {
    db.exec('BEGIN IMMEDIATE');
    for (const r of rows) {
      insertMessage.run(r.id, r.from, r.to, r.body, 'queued', r.createdAt);
      insertOutbox.run(newId('evt', r.createdAt), r.id, 'message.created', r.createdAt);
    }
    db.exec('COMMIT');
  };
}

const commit = await openCommitter();
let pending: Pending[] = [];
let running = false;

// Group commit: everything parsed in one event-loop turn (and while a commit runs) shares it.
async function flush(): Promise<void> {
  if (running || pending.length === 0) return;
  running = true;
  const batch = pending;
  pending = [];
  try {
    await commit(batch.map((p) => p.row));
    for (const { res, row } of batch) {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: row.id, from: row.from, to: row.to, status: 'queued' }));
    }
  } catch (error) {
    for (const { res } of batch) res.writeHead(500).end(String(error));
  }
  running = false;
  if (pending.length > 0) setImmediate(flush);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let input: { from?: unknown; to?: unknown; body?: unknown };
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof input;
    } catch {
      return res.writeHead(400).end();
    }
    if (typeof input.from !== 'string' || typeof input.to !== 'string') {
      return res.writeHead(422).end();
    }
    const now = Date.now();
    const body = typeof input.body === 'string' ? input.body : '';
    const row = { id: newId('msg', now), from: input.from, to: input.to, body, createdAt: now };
    pending.push({ res, row });
    if (pending.length === 1) setImmediate(flush);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address?.port })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
