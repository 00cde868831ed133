import { EventEmitter } from 'node:events';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { CAPABILITIES, type Capabilities, type Engine } from './engine/capabilities.ts';
import {
  forgetStatements,
  openSqlite,
  sqliteKysely,
  type SqliteDurability,
} from './engine/sqlite.ts';
import { startCheckpointer, type Checkpointer } from './engine/sqlite-checkpointer.ts';
import { walSync } from './engine/sqlite-wal-sync.ts';
import { migrationProvider } from './migrations/index.ts';
import type { DB } from './schema.ts';
import {
  WRITE_LANES,
  WriteQueue,
  type WriteLane,
  type WriteOptions,
  type WriteUnit,
} from './engine/write-queue.ts';

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
  /**
   * PostgreSQL: listen for the signals other processes sharing the database commit
   * (default true). A short-lived command has no one to tell what it would hear; it
   * does not listen, and its own signals always go out.
   */
  hearOthers?: boolean;
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
  /**
   * The share of the writer's time requests took lately, 0 to 1 (WriteQueue.requestLoad):
   * background work takes small bites while requests are about, since they wait behind
   * each of its batches. On PostgreSQL, where each lane commits on its own connection,
   * 1 while the request lane is saturated (WriteQueue.saturated) and 0 otherwise.
   */
  requestLoad(): number;
  /** Finishes queued writes and closes every connection. */
  close(): Promise<void>;
}

/**
 * The side of a store that reads: what the HTTP thread holds when changes run on
 * the store thread (threads/), where `signals` are the store thread's, relayed.
 */
export type ReadStore = Pick<
  Store,
  'engine' | 'capabilities' | 'db' | 'signals' | 'foreignChanges'
>;

/** A commit that is already as durable as it was asked to be. */
const ON_DISK = Promise.resolve();

/** How long a PostgreSQL store waits at most for its listener before it opens anyway. */
const LISTEN_WAIT_MS = 10_000;

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
  // Commits write the WAL without flushing it; `wal` flushes it off the event loop.
  const writer: DatabaseSync = openSqlite(path, {
    durability: 'normal',
    autoCheckpoint: !threaded,
  });
  const wal = walSync(path);
  // For the checkpoint thread to flush the database file (opened for writing only so
  // that the flush is allowed everywhere; nothing is written through it). Closed last:
  // closing it while a connection is open would drop that connection's POSIX locks.
  const databaseFd = threaded ? openSync(path, 'r+') : null;
  const checkpointer: Checkpointer | null =
    databaseFd === null ? null : startCheckpointer(path, { databaseFd });
  // Unchanged by this connection's own commits, so it moves only for other processes' writes.
  const dataVersion = writer.prepare('PRAGMA data_version');
  dataVersion.setReturnArrays(true);
  const schemaVersion = writer.prepare('PRAGMA schema_version');
  schemaVersion.setReturnArrays(true);
  const writerDb = sqliteKysely<DB>(writer);
  let readerDb: Kysely<DB> | null = null;
  // Prepared statements of a `SELECT *` build their rows for the columns they had when
  // prepared (store/engine/sqlite.ts). When another process changes the schema (a newer CLI
  // migrating the file), they are dropped: checked in each write transaction, where the
  // schema cannot move under it, and whenever another process's commits are noticed.
  let schemaSeen = -1;
  const noticeSchemaChanges = () => {
    const version = (schemaVersion.get() as unknown as [number])[0];
    if (version === schemaSeen) return;
    if (schemaSeen !== -1) {
      forgetStatements(writerDb);
      if (readerDb) forgetStatements(readerDb);
    }
    schemaSeen = version;
  };
  let foreignSeen = -1;
  const signals = new EventEmitter();
  const queue = new WriteQueue(async (body, durable) => {
    // The checkpoint thread holds the writer here for a moment to start the log over
    // (store/engine/sqlite-checkpointer.ts).
    const held = checkpointer?.enter();
    if (held) await held;
    // IMMEDIATE takes the write lock up front, so a transaction that reads
    // before it writes waits (busy_timeout) instead of failing on upgrade
    // when the CLI writes to the same file.
    try {
      writer.exec('BEGIN IMMEDIATE');
      noticeSchemaChanges();
      // The batch's signals stay in this process: no other one listens on a SQLite
      // file (they notice its commits through `foreignChanges`).
      await body(writerDb);
      writer.exec('COMMIT');
    } catch (error) {
      if (writer.isTransaction) writer.exec('ROLLBACK');
      throw error;
    } finally {
      checkpointer?.leave();
    }
    // `normal` durability skips the flush: crash-consistent, but the last commits
    // before a power failure may be lost. A batch of only `durable: false` units
    // needs none either; the next durable flush covers it.
    return { onDisk: durable && durability === 'full' ? wal.flush() : ON_DISK };
  }, signals);
  const store: Store = {
    engine: 'sqlite',
    capabilities: CAPABILITIES.sqlite,
    signals,
    get db() {
      readerDb ??= sqliteKysely<DB>(openSqlite(path, { readOnly: true, durability }));
      return readerDb;
    },
    write: (unit, options) => queue.submit(unit, options),
    requestLoad: () => queue.requestLoad,
    foreignChanges: () => {
      const version = (dataVersion.get() as unknown as [number])[0];
      if (version !== foreignSeen) {
        foreignSeen = version;
        noticeSchemaChanges();
      }
      return version;
    },
    async close() {
      await queue.close();
      await wal.close();
      await checkpointer?.stop();
      await readerDb?.destroy();
      await writerDb.destroy();
      if (databaseFd !== null) closeSync(databaseFd);
    },
  };
  return { store, migrationDb: writerDb };
}

/**
 * The PostgreSQL modules (and the `pg` driver under them) are loaded only when a
 * `DATABASE_URL` asks for them: a SQLite server never holds them in memory (~8 MB).
 */
async function openPostgresStore(databaseUrl: string, hearOthers: boolean): Promise<Opened> {
  const [
    { openPostgresPool, postgresDialect },
    { alwaysRelay, listenForSignals, newOrigin },
    { postgresLane },
  ] = await Promise.all([
    import('./engine/postgres.ts'),
    import('./engine/postgres-signal-relay.ts'),
    import('./engine/postgres-lane.ts'),
  ]);
  const pool = openPostgresPool(databaseUrl);
  const db = new Kysely<DB>({ dialect: postgresDialect(pool) });
  const signals = new EventEmitter();
  // Several instances may share this database: each hears the others' committed signals.
  const origin = newOrigin();
  const relay = hearOthers
    ? listenForSignals(databaseUrl, origin, (topic, payload) => signals.emit(topic, payload))
    : alwaysRelay(origin);
  // Nothing is served before this process listens and has announced itself: from then on
  // the others relay to it (postgres-signal-relay.ts). Bounded: a listener that cannot
  // connect retries on its own, and the store's own connections report the database's errors.
  await Promise.race([relay.listening, sleep(LISTEN_WAIT_MS, undefined, { ref: false })]);
  // The lanes, each one transaction at a time on a connection of its own (see
  // WriteOptions.lane and store/engine/postgres-lane.ts). They touch different rows almost
  // always (new sends, the receipts of earlier ones, the attempts of their webhooks);
  // when they do meet, PostgreSQL's row locks order them, as they do for instances
  // sharing the database.
  const connections = WRITE_LANES.map(() => postgresLane(databaseUrl, relay));
  // Each lane's connection pipelines (WriteQueueOptions.pipelined).
  const requests = new WriteQueue(connections[WRITE_LANES.indexOf('request')]!.run, signals, {
    pipelined: true,
  });
  // The background lanes yield to a saturated request lane (see BACKGROUND_WAIT_MS).
  const lanes = Object.fromEntries(
    WRITE_LANES.map((name, i) => [
      name,
      name === 'request'
        ? requests
        : new WriteQueue(connections[i]!.run, signals, { paceBy: requests, pipelined: true }),
    ]),
  ) as Record<WriteLane, WriteQueue>;
  let calls = 0;
  const store: Store = {
    engine: 'postgres',
    capabilities: CAPABILITIES.postgres,
    signals,
    db,
    write: (unit, options) => lanes[options?.lane ?? 'request'].submit(unit, options),
    foreignChanges: () => ++calls,
    requestLoad: () => (requests.saturated ? 1 : 0),
    async close() {
      await Promise.all(Object.values(lanes).map((queue) => queue.close()));
      await Promise.all(connections.map((lane) => lane.close()));
      await relay.close();
      await db.destroy();
    },
  };
  return { store, migrationDb: db };
}

/**
 * The same store with its writes on `lane` (WriteOptions.lane): what the carrier
 * side and the webhook worker are given, so that choice is made once, where they
 * are started.
 */
export function onLane(store: Store, lane: WriteLane): Store {
  return withWrite(store, (unit, options) => store.write(unit, { ...options, lane }));
}

/** The same store with its writes made by `write` (which passes them on), all else as it is. */
export function withWrite(store: Store, write: Store['write']): Store {
  return {
    engine: store.engine,
    capabilities: store.capabilities,
    signals: store.signals,
    get db() {
      return store.db;
    },
    write,
    foreignChanges: () => store.foreignChanges(),
    requestLoad: () => store.requestLoad(),
    close: () => store.close(),
  };
}

/**
 * The reading side of a store whose changes are made elsewhere (the store thread,
 * threads/): a read-only SQLite connection, or a PostgreSQL pool. It never
 * migrates; the writer has. `signals` are given: the writer's, relayed.
 *
 * Another connection commits here all the time, so `foreignChanges()` moves on
 * every call, as on PostgreSQL: a cache that depends on it is checked against the
 * database at every use (an API key is looked up on every request).
 */
export async function openReadStore(
  options: StoreOptions,
  signals: EventEmitter,
): Promise<ReadStore & { close(): Promise<void> }> {
  let calls = 0;
  const foreignChanges = () => ++calls;
  if (options.databaseUrl) {
    const { openPostgresPool, postgresDialect } = await import('./engine/postgres.ts');
    const db = new Kysely<DB>({ dialect: postgresDialect(openPostgresPool(options.databaseUrl)) });
    return {
      engine: 'postgres',
      capabilities: CAPABILITIES.postgres,
      db,
      signals,
      foreignChanges,
      close: () => db.destroy(),
    };
  }
  const db = sqliteKysely<DB>(
    openSqlite(sqlitePath(options.dataDir), {
      readOnly: true,
      durability: options.durability ?? 'full',
    }),
  );
  return {
    engine: 'sqlite',
    capabilities: CAPABILITIES.sqlite,
    db,
    signals,
    foreignChanges,
    close: () => db.destroy(),
  };
}

/** Opens the configured store and brings its schema to the latest migration. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const { store, migrationDb } = options.databaseUrl
    ? await openPostgresStore(options.databaseUrl, options.hearOthers ?? true)
    : openSqliteStore(options);
  try {
    await migrate(migrationDb);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
