import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import type pg from 'pg';
import { CAPABILITIES, type Capabilities, type Engine } from './capabilities.ts';
import { openSqlite, sqliteDialect, type SqliteDurability } from './dialects/sqlite.ts';
import { openPostgresPool, postgresDialect } from './dialects/postgres.ts';
import { listenForSignals, newOrigin, relaySignals } from './dialects/postgres-signal-relay.ts';
import { startCheckpointer, type Checkpointer } from './dialects/sqlite-checkpointer.ts';
import { migrationProvider } from './migrations/index.ts';
import type { DB } from './schema.ts';
import { WriteQueue, type WriteOptions, type WriteUnit } from './write-queue.ts';

/** Where the data lives: a SQLite file under `dataDir`, or a PostgreSQL URL. */
export interface StoreOptions {
  dataDir: string;
  databaseUrl: string | null;
  durability?: SqliteDurability;
  /**
   * SQLite: checkpoint from a background thread instead of after commits on the
   * writer, so a checkpoint never blocks the event loop. For long-running servers;
   * short-lived commands keep SQLite's default.
   */
  checkpointThread?: boolean;
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
  /** Runs a unit of work in a (shared) transaction; resolves after commit (durable unless asked). */
  write<T>(unit: WriteUnit<T>, options?: WriteOptions): Promise<T>;
  /**
   * A number that changes whenever another process may have committed something
   * this process caches (a revoked key): compare it before trusting a cache. SQLite:
   * the writer's `data_version`, which moves on every commit by another connection.
   * PostgreSQL: another instance's commit is heard (NOTIFY) only after it, too
   * late for "the very next request", so the number moves on every call and a
   * cache keyed on it is never trusted.
   */
  foreignChanges(): number;
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
  const threaded = options.checkpointThread ?? false;
  const writer: DatabaseSync = openSqlite(path, { durability, autoCheckpoint: !threaded });
  const checkpointer: Checkpointer | null = threaded ? startCheckpointer(path) : null;
  // Unchanged by this connection's own commits, so it moves only for other processes' writes.
  const dataVersion = writer.prepare('PRAGMA data_version');
  const writerDb = new Kysely<DB>({ dialect: sqliteDialect(writer) });
  let readerDb: Kysely<DB> | null = null;
  const signals = new EventEmitter();
  // The connection's current synchronous level; switched only when a batch needs the other.
  let syncing = durability === 'full';
  const queue = new WriteQueue(async (body, durable) => {
    const wanted = durable && durability === 'full';
    if (wanted !== syncing) {
      // NORMAL in WAL mode commits without fsync and stays crash-consistent.
      writer.exec(`PRAGMA synchronous = ${wanted ? 'FULL' : 'NORMAL'}`);
      syncing = wanted;
    }
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
    write: (unit, options) => queue.submit(unit, options),
    foreignChanges: () => (dataVersion.get() as { data_version: number }).data_version,
    async close() {
      await queue.close();
      await checkpointer?.stop();
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
  // Several instances may share this database: each hears the others' committed signals.
  const origin = newOrigin();
  const relay = listenForSignals(databaseUrl, origin, (topic, payload) =>
    signals.emit(topic, payload),
  );
  const queue = new WriteQueue(
    (body, durable) =>
      db.transaction().execute(async (tx) => {
        // Without waiting for the WAL flush; a later synchronous commit flushes it too.
        if (!durable) await sql`set local synchronous_commit to off`.execute(tx);
        await body(tx);
      }),
    signals,
    (tx, batch) => relaySignals(tx, origin, batch),
  );
  let calls = 0;
  const store: Store = {
    engine: 'postgres',
    capabilities: CAPABILITIES.postgres,
    signals,
    db,
    write: (unit, options) => queue.submit(unit, options),
    foreignChanges: () => ++calls,
    async close() {
      await queue.close();
      await relay.close();
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
