// The bench's reference: the least a durable send can cost in Node. A bare node:http server
// (lib/bare-send-server.ts) that parses the JSON body and, with group commit, inserts one
// message row and one outbox row per request, answering 201 only after the commit
// (synchronous=FULL on SQLite, a synchronous commit on PostgreSQL). No framework, no auth,
// no validation beyond shape.
//   node reference-server.ts PORT DATA_DIR [postgres://…]
import { join } from 'node:path';
import pg from 'pg';
import { serveBareSends } from './lib/bare-send-server.ts';
import {
  openSqliteReference,
  REFERENCE_SCHEMA,
  referenceId,
  type ReferenceRow,
} from './lib/reference-store.ts';

const [port = '0', dataDir = '.', databaseUrl] = process.argv.slice(2);

/** Commits a batch: SQLite synchronously on one connection, PostgreSQL in one transaction. */
async function openCommitter(): Promise<(rows: ReferenceRow[]) => Promise<void>> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (const statement of REFERENCE_SCHEMA) await client.query(statement);
    return async (rows) => {
      const m = rows.flatMap((r) => [r.id, r.from, r.to, r.body, 'queued', r.createdAt]);
      const o = rows.flatMap((r) => [
        referenceId('evt', r.createdAt),
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
  const reference = openSqliteReference(join(dataDir, 'reference.db'), 'FULL');
  return async (rows) => reference.store(rows);
}

serveBareSends(Number(port), {
  accept(input) {
    if (typeof input.from !== 'string' || typeof input.to !== 'string') return 422;
    const now = Date.now();
    const body = typeof input.body === 'string' ? input.body : '';
    return { id: referenceId('msg', now), from: input.from, to: input.to, body, createdAt: now };
  },
  commit: await openCommitter(),
  present: (row) => ({ id: row.id, from: row.from, to: row.to, status: 'queued' }),
});
