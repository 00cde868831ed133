import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import type pg from 'pg';
import { CAPABILITIES, type Capabilities, type Engine } from './capabilities.ts';
import { openSqlite, sqliteDialect, type SqliteDurability } from './dialects/sqlite.ts';
import { openPostgresPool, postgresDialect } from './dialects/postgres.ts';
import { migrationProvider } from './migrations/index.ts';
import type { DB } from './schema.ts';
import { WriteQueue, type WriteUnit } from './write-queue.ts';

/** Where the data lives: a SQLite file under `dataDir`, or a PostgreSQL URL. */
export interface StoreOptions {
  dataDir: string;
  databaseUrl: string | null;
  durability?: SqliteDurability;
}

/**
 * The storage port: reads go straight to `db`, every change goes through
 * `write`, which group-commits and answers only once the change is durable.
 */
export interface Store {
  readonly engine: Engine;
  readonly capabilities: Capabilities;
  /** For reads. In SQLite this connection is read-only, so a stray write fails loudly. */
  readonly db: Kysely<DB>;
  /**
   * In-process notifications published by committed units (`tx.publish`), such
   * as `event` for every outbox row; workers and the realtime hub listen here.
   */
  readonly signals: EventEmitter;
  /** Runs a unit of work in a (shared) transaction; resolves after commit. */
  write<T>(unit: WriteUnit<T>): Promise<T>;
  /** Finishes queued writes and closes every connection. */
  close(): Promise<void>;
}

/** The SQLite file inside a data directory. */
export function sqlitePath(dataDir: string): string {
  return join(dataDir, 'switchboard.db');
}

async function migrate(db: Kysely<DB>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, {
      cause: error,
    });
  }
}

/** A store and the connection its migrations run on (the writer). */
interface Opened {
  store: Store;
  migrationDb: Kysely<DB>;
}

function openSqliteStore(options: StoreOptions): Opened {
  mkdirSync(options.dataDir, { recursive: true });
  const path = sqlitePath(options.dataDir);
  const durability = options.durability ?? 'full';
  const writer: DatabaseSync = openSqlite(path, { durability });
  const writerDb = new Kysely<DB>({ dialect: sqliteDialect(writer) });
  let readerDb: Kysely<DB> | null = null;
  const signals = new EventEmitter();
  const queue = new WriteQueue(async (body) => {
    // IMMEDIATE takes the write lock up front, so a transaction that reads
    // before it writes waits (busy_timeout) instead of failing on upgrade
    // when the CLI writes to the same file.
    writer.exec('BEGIN IMMEDIATE');
    try {
      await body(writerDb);
      writer.exec('COMMIT');
    } catch (error) {
      if (writer.isTransaction) writer.exec('ROLLBACK');
      throw error;
    }
  }, signals);
  const store: Store = {
    engine: 'sqlite',
    capabilities: CAPABILITIES.sqlite,
    signals,
    get db() {
      readerDb ??= new Kysely<DB>({
        dialect: sqliteDialect(openSqlite(path, { readOnly: true, durability })),
      });
      return readerDb;
    },
    write: (unit) => queue.submit(unit),
    async close() {
      await queue.close();
      await readerDb?.destroy();
      await writerDb.destroy();
    },
  };
  return { store, migrationDb: writerDb };
}

function openPostgresStore(databaseUrl: string): Opened {
  const pool: pg.Pool = openPostgresPool(databaseUrl);
  const db = new Kysely<DB>({ dialect: postgresDialect(pool) });
  const signals = new EventEmitter();
  const queue = new WriteQueue((body) => db.transaction().execute(body), signals);
  const store: Store = {
    engine: 'postgres',
    capabilities: CAPABILITIES.postgres,
    signals,
    db,
    write: (unit) => queue.submit(unit),
    async close() {
      await queue.close();
      await db.destroy();
    },
  };
  return { store, migrationDb: db };
}

/** Opens the configured store and brings its schema to the latest migration. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const { store, migrationDb } = options.databaseUrl
    ? openPostgresStore(options.databaseUrl)
    : openSqliteStore(options);
  try {
    await migrate(migrationDb);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
