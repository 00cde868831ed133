import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

/** How hard SQLite works to keep a commit: `full` fsyncs the WAL on every commit. */
export type SqliteDurability = 'full' | 'normal';

const STATEMENT_CACHE_SIZE = 500;

/**
 * Opens a `node:sqlite` connection tuned for a server: WAL so readers never
 * block the writer, a busy timeout so the CLI and a running server share the
 * file, and foreign keys on.
 */
export function openSqlite(
  path: string,
  options: { readOnly?: boolean; durability: SqliteDurability; autoCheckpoint?: boolean },
): DatabaseSync {
  const db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
  db.exec('PRAGMA busy_timeout = 10000');
  if (!options.readOnly) {
    db.exec('PRAGMA journal_mode = WAL');
    // A server checkpoints from another thread (sqlite-checkpointer.ts); short-lived
    // processes such as the CLI let the writer checkpoint after its commits.
    db.exec(`PRAGMA wal_autocheckpoint = ${options.autoCheckpoint === false ? 0 : 1000}`);
  }
  db.exec(`PRAGMA synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
  db.exec('PRAGMA foreign_keys = ON');
  return db;
}

/**
 * Adapts `node:sqlite` to the statement interface Kysely's SqliteDialect expects
 * (better-sqlite3's shape): `reader` comes from the statement's result columns,
 * parameters are spread, and prepared statements are cached by SQL text so
 * the hot path never compiles the same statement twice.
 */
export function adaptNodeSqlite(db: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  const wrap = (stmt: StatementSync): SqliteStatement => ({
    reader: stmt.columns().length > 0,
    all: (parameters) => stmt.all(...(parameters as never[])),
    run: (parameters) => {
      const result = stmt.run(...(parameters as never[]));
      return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    },
    iterate: (parameters) => stmt.iterate(...(parameters as never[])),
  });
  return {
    close: () => db.close(),
    prepare: (sql: string) => {
      let statement = cache.get(sql);
      if (!statement) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        statement = wrap(db.prepare(sql));
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/** A Kysely dialect over one `node:sqlite` connection. */
export function sqliteDialect(db: DatabaseSync): SqliteDialect {
  return new SqliteDialect({ database: adaptNodeSqlite(db) });
}
