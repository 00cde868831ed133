// The reference's storage (reference-server.ts): a message row and an outbox row per send,
// both keyed by time-ordered ids, so every insert lands on the right edge of its table.
import { DatabaseSync } from 'node:sqlite';

export const REFERENCE_SCHEMA = [
  'CREATE TABLE IF NOT EXISTS ref_messages (id TEXT PRIMARY KEY, from_phone TEXT NOT NULL, to_phone TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, created_at BIGINT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS ref_outbox (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, type TEXT NOT NULL, created_at BIGINT NOT NULL)',
];

/** A send as the reference stores it. */
export interface ReferenceRow {
  id: string;
  from: string;
  to: string;
  body: string;
  createdAt: number;
}

let seq = 0;
/** Time-ordered ids, as Switchboard's: the time in fixed-width base36, then a counter. */
export const referenceId = (prefix: string, now: number): string =>
  `${prefix}_${now.toString(36).padStart(9, '0')}${(seq++).toString(36).padStart(8, '0')}`;

/**
 * Opens the reference's SQLite file in WAL mode and returns its connection and how a batch
 * is stored: one transaction, two inserts per send. `synchronous` FULL fsyncs the log in
 * every COMMIT.
 */
export function openSqliteReference(
  path: string,
  synchronous: 'FULL' | 'NORMAL',
): { db: DatabaseSync; store(rows: ReferenceRow[]): void } {
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous};`);
  for (const statement of REFERENCE_SCHEMA) db.exec(statement);
  const insertMessage = db.prepare('INSERT INTO ref_messages VALUES (?, ?, ?, ?, ?, ?)');
  const insertOutbox = db.prepare('INSERT INTO ref_outbox VALUES (?, ?, ?, ?)');
  return {
    db,
    store(rows) {
      db.exec('BEGIN IMMEDIATE');
      for (const r of rows) {
        insertMessage.run(r.id, r.from, r.to, r.body, 'queued', r.createdAt);
        insertOutbox.run(referenceId('evt', r.createdAt), r.id, 'message.created', r.createdAt);
      }
      db.exec('COMMIT');
    },
  };
}
