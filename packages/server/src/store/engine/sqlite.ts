import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  Kysely,
  SqliteDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';

import { registerDirectRunner } from './compiled.ts';

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
 * Builds the rows of one statement from its result arrays. `node:sqlite` makes each
 * row object by adding its columns one by one to a null-prototype object, which V8
 * keeps in dictionary mode: every property read was a hash lookup, and a spread of a
 * row (`{ ...message, status }`) cost ~1.4 µs against ~0.04 µs for a plain object
 * (5 % of a send's CPU on two such spreads alone). Built from an object literal, the
 * rows of a statement share one hidden class, and making them is cheaper too
 * (64 rows: 67 → 44 µs). A later column of the same name wins, as it did before.
 */
function rowFactory(columns: readonly string[]): (values: readonly unknown[]) => unknown {
  const last = new Map(columns.map((name, i) => [name, i]));
  // `__proto__: …` in a literal would set the prototype; as a computed key it is a column.
  const fields = [...last].map(([name, i]) =>
    name === '__proto__' ? `["__proto__"]: v[${i}]` : `${JSON.stringify(name)}: v[${i}]`,
  );
  // A constructor written once per prepared statement, from the names SQLite reports.
  return new Function('v', `return { ${fields.join(', ')} };`) as (
    v: readonly unknown[],
  ) => unknown;
}

/** The result columns a statement reports now, by name. */
function columnNames(stmt: StatementSync): string[] {
  return stmt.columns().map((column) => column.name);
}

/** A `node:sqlite` connection as Kysely's SqliteDialect sees it, and a way to drop its statements. */
interface AdaptedDatabase extends SqliteDatabase {
  /** Forgets every prepared statement (and its row constructor): the schema changed. */
  forgetStatements(): void;
}

/**
 * Adapts `node:sqlite` to the statement interface Kysely's SqliteDialect expects
 * (better-sqlite3's shape): `reader` comes from the statement's result columns,
 * parameters are spread, rows are built by `rowFactory`, and prepared statements
 * are cached by SQL text so the hot path never compiles the same statement twice.
 *
 * SQLite prepares a statement again by itself, at its next step, when another
 * connection changed the schema, and a `SELECT *` may then return other columns
 * than its row constructor was written for. The constructor is written from the
 * names the statement reports after its first step; a different count later is
 * seen at once (it is written again); a change that keeps the count (a column
 * dropped and another added) is caught by `forgetStatements`, which the store
 * calls when the schema version moves.
 */
export function adaptNodeSqlite(db: DatabaseSync): AdaptedDatabase {
  const cache = new Map<string, SqliteStatement>();
  const wrap = (stmt: StatementSync): SqliteStatement => {
    let columns = columnNames(stmt);
    if (columns.length === 0) {
      return {
        reader: false,
        all: (parameters) => stmt.all(...(parameters as never[])),
        run: (parameters) => {
          const result = stmt.run(...(parameters as never[]));
          return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
        },
        iterate: (parameters) => stmt.iterate(...(parameters as never[])),
      };
    }
    stmt.setReturnArrays(true);
    // Named once the statement has run: a statement prepared while this connection had not
    // yet seen another's schema change reports the old names until its first step.
    let row: ((values: readonly unknown[]) => unknown) | null = null;
    const build = (values: unknown[]): unknown => {
      if (row === null || values.length !== columns.length) {
        columns = columnNames(stmt);
        row = rowFactory(columns);
      }
      return row(values);
    };
    return {
      reader: true,
      all: (parameters) => {
        const arrays = stmt.all(...(parameters as never[])) as unknown as unknown[][];
        const rows = new Array<unknown>(arrays.length);
        for (let i = 0; i < arrays.length; i++) rows[i] = build(arrays[i]!);
        return rows;
      },
      run: (parameters) => {
        const result = stmt.run(...(parameters as never[]));
        return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
      },
      *iterate(parameters) {
        for (const values of stmt.iterate(...(parameters as never[]))) {
          yield build(values as unknown as unknown[]);
        }
      },
    };
  };
  return {
    close: () => db.close(),
    forgetStatements: () => cache.clear(),
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

/**
 * How long statements may run back to back before the event loop gets a turn.
 * `node:sqlite` is synchronous and its promises are already settled, so a whole
 * write batch (64 sends ≈ 25–40 ms, a carrier batch of 200 receipts more) used to
 * run as one turn. libuv accepts one connection per turn, so 64 new connections
 * took 64 such turns (0.5–2 s) to be accepted, and wrk counts each stalled first
 * request many times over (its coordinated-omission correction): that was the POST
 * p99 tail (same loaded machine: accepts spread over 1.4 s → 0.24 s, p99 0.84–1.19 s
 * → 0.13–0.24 s). The cost is one setImmediate hop per 2 ms of statements; the write
 * transaction stays open across it, and only the write queue uses the writer.
 */
const TURN_BUDGET_MS = 2;

let turnStarted = -1;

/** Resolves on the next turn when this one has run past the budget; otherwise undefined. */
function pauseIfLong(): Promise<void> | undefined {
  const now = performance.now();
  if (turnStarted < 0) {
    turnStarted = now;
    // Fires once the loop has come round, so the next statement opens a new slice.
    setImmediate(() => (turnStarted = -1));
    return undefined;
  }
  if (now - turnStarted < TURN_BUDGET_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs `statement` now, or on the next turn when this one has run past the budget. */
function inTurn<T>(statement: () => T | Promise<T>): Promise<T> {
  const paused = pauseIfLong();
  if (paused) return paused.then(statement);
  // A statement that throws rejects, either way.
  try {
    return Promise.resolve(statement());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** Lets statements wait for the next turn of the event loop when this one has run long. */
function yieldBetweenStatements(connection: DatabaseConnection): void {
  const execute = connection.executeQuery.bind(connection);
  connection.executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
    inTurn(() => execute<R>(query));
}

const forgetters = new WeakMap<object, () => void>();

/** Drops the prepared statements of a Kysely instance made by `sqliteKysely` (see adaptNodeSqlite). */
export function forgetStatements<DB>(db: Kysely<DB>): void {
  forgetters.get(db)?.();
}

/**
 * A Kysely instance over one `node:sqlite` connection, and a direct way to run
 * a statement on it for `store/engine/compiled.ts`: the same prepared statement, the
 * same pause between long runs of statements, without Kysely's executor (its
 * connection mutex and promise chain cost about as much as the statement itself
 * for the hot, compiled ones). One connection runs one statement at a time
 * either way: `node:sqlite` is synchronous.
 */
export function sqliteKysely<DB>(db: DatabaseSync): Kysely<DB> {
  const database = adaptNodeSqlite(db);
  const kysely = new Kysely<DB>({
    dialect: new SqliteDialect({
      database,
      onCreateConnection: async (connection) => yieldBetweenStatements(connection),
    }),
  });
  const rows = (sql: string, parameters: readonly unknown[]): unknown[] => {
    const statement = database.prepare(sql);
    if (statement.reader) return statement.all(parameters) as unknown[];
    statement.run(parameters);
    return [];
  };
  const changes = (sql: string, parameters: readonly unknown[]): number =>
    Number(database.prepare(sql).run(parameters).changes);
  forgetters.set(kysely, () => database.forgetStatements());
  registerDirectRunner(kysely, {
    rows: (sql, parameters) => inTurn(() => rows(sql, parameters)),
    changes: (sql, parameters) => inTurn(() => changes(sql, parameters)),
  });
  return kysely;
}
