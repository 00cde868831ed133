// The bench's reference: the least a durable send can cost in Node. A bare node:http server
// (lib/bare-send-server.ts) that parses the JSON body and, with group commit, inserts one
// message row and one outbox row per request, answering 201 only after the commit
// (synchronous=FULL on SQLite, a synchronous commit on PostgreSQL). No framework, no auth,
// no validation beyond shape.
//   node reference-server.ts PORT DATA_DIR [postgres://…]
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { serveBareSends } from './lib/bare-send-server.ts';

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

serveBareSends(Number(port), {
  accept(input) {
    if (typeof input.from !== 'string' || typeof input.to !== 'string') return 422;
    const now = Date.now();
    const body = typeof input.body === 'string' ? input.body : '';
    return { id: newId('msg', now), from: input.from, to: input.to, body, createdAt: now };
  },
  commit: await openCommitter(),
  present: (row) => ({ id: row.id, from: row.from, to: row.to, status: 'queued' }),
});
