import { CompiledQuery, type Compilable, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../schema.ts';

/** Runs SQL with parameters on one connection, for its rows or for the count of rows it changed. */
export interface DirectRunner {
  rows(sql: string, parameters: readonly unknown[]): Promise<unknown[]>;
  changes(sql: string, parameters: readonly unknown[]): Promise<number>;
}

// Connections that can run a compiled statement without Kysely's executor (SQLite).
const directRunners = new WeakMap<object, DirectRunner>();

/** Lets compiled statements on `db` run through `runner` (see store/engine/sqlite.ts). */
export function registerDirectRunner<T>(db: Kysely<T>, runner: DirectRunner): void {
  directRunners.set(db, runner);
}

// The SQL of every fixed shape, with a name for it as a server-side prepared statement.
const preparedNames = new Map<string, string>();

/** Records `sql` as a fixed shape (it gets a prepared-statement name); returns it. */
function fixedShape(sql: string): string {
  if (!preparedNames.has(sql)) preparedNames.set(sql, `sb_${preparedNames.size}`);
  return sql;
}

/** A statement without parameters that never changes (the write queue's savepoints). */
export function fixedQuery(sql: string): CompiledQuery {
  return CompiledQuery.raw(fixedShape(sql));
}

/**
 * The name PostgreSQL connections prepare `sql` under, if it is one of the fixed
 * shapes run here (see store/engine/postgres.ts); undefined for any other query.
 */
export function preparedName(sql: string): string | undefined {
  return preparedNames.get(sql);
}

/** Runs an already compiled query, directly where the connection allows it. */
export async function runCompiled<R, T>(db: Kysely<T>, query: CompiledQuery<R>): Promise<R[]> {
  const direct = directRunners.get(db);
  if (direct) return (await direct.rows(query.sql, query.parameters)) as R[];
  return (await db.executeQuery<R>(query)).rows;
}

/** The SQL of a shape, and where each of its parameters comes from. */
interface Shape {
  sql: string;
  /** For each parameter: the index of the argument it is, or -1 for a constant. */
  args: number[];
  /** For each parameter: the constant it is (unused where `args` names an argument). */
  constants: unknown[];
}

/** How a shape runs on PostgreSQL. */
export interface ShapeOptions {
  /**
   * Planned for the values of each call, not prepared by name (store/engine/postgres.ts).
   * A named statement is planned once for any value after its first few calls, and
   * for an array parameter (`= any($1)`) that generic plan cannot know how many
   * elements come: the receipts' lookup by carrier reference hash-joined the whole
   * messages table (5 ms at 6,500 messages, 35 ms at 15,000, and growing with it)
   * where the plan for the actual list probes two indexes. For statements that run
   * once per batch and whose best plan depends on the list (a join hashed or not).
   * Where one plan is right for every list (each row found by its key), the statement
   * is named instead and run under `withFixedIndexPlans` (index-plans.ts): planning at
   * every call cost the webhook lane's settlements ~0.5 ms each.
   */
  planEachCall?: boolean;
}

/**
 * A query shape that Kysely builds and compiles once per engine and that then runs
 * with new parameters. Building and compiling cost ~5 µs of the ~11 µs a statement
 * took through Kysely on SQLite, for SQL that never changes between calls; this is
 * for the hottest statements only (the send path, the carrier side, `GET` of a
 * message). `build` must only pass its arguments through as values (no arithmetic or
 * branching on them): it is called once with placeholders, and Kysely's compiled
 * parameter order is stable.
 * On a connection with a direct runner a call allocates only its parameter list:
 * these statements run some 25 times per message, and each object made per call
 * was garbage the young generation had to sweep.
 */
export function compiled<A extends unknown[], R>(
  build: (db: Kysely<DB>, ...args: A) => Compilable<R>,
  options: ShapeOptions = {},
): (db: Kysely<DB>, ...args: A) => Promise<R[]> {
  const statement = shapedStatement(build, options);
  return (db, ...args) => {
    const { sql, parameters } = statement(db, args);
    const direct = directRunners.get(db);
    if (direct) return direct.rows(sql, parameters) as Promise<R[]>;
    return db.executeQuery<R>(CompiledQuery.raw(sql, parameters)).then((r) => r.rows);
  };
}

/**
 * A shape written as SQL text (Kysely's `sql` template), for what the query builder
 * cannot say, such as rows made by `unnest` of array parameters: compiled the same
 * way as `compiled`'s, its arguments only passed through as values.
 */
export function compiledSql<A extends unknown[], R>(
  build: (...args: A) => RawBuilder<R>,
  options: ShapeOptions = {},
): (db: Kysely<DB>, ...args: A) => Promise<R[]> {
  return compiled((db: Kysely<DB>, ...args: A) => {
    const query = build(...args);
    return { compile: () => query.compile(db) };
  }, options);
}

/**
 * A compiled UPDATE or DELETE (see `compiled`) that resolves with the number of
 * rows it changed. For a caller that only needs to know whether it applied:
 * `RETURNING` makes SQLite collect the changed rows before it answers, which
 * doubled the cost of a recipient's status update (2.97 → 1.40 µs alone).
 */
export function compiledChanges<A extends unknown[]>(
  build: (db: Kysely<DB>, ...args: A) => Compilable<unknown>,
): (db: Kysely<DB>, ...args: A) => Promise<number> {
  const statement = shapedStatement(build);
  return (db, ...args) => {
    const { sql, parameters } = statement(db, args);
    const direct = directRunners.get(db);
    if (direct) return direct.changes(sql, parameters);
    return db
      .executeQuery(CompiledQuery.raw(sql, parameters))
      .then((r) => Number(r.numAffectedRows ?? 0n));
  };
}

/** The SQL of `build`'s shape on `db`'s engine and the parameters of one call. */
function shapedStatement<A extends unknown[]>(
  build: (db: Kysely<DB>, ...args: A) => Compilable<unknown>,
  options: ShapeOptions = {},
): (db: Kysely<DB>, args: A) => { sql: string; parameters: unknown[] } {
  // One shape per engine (its adapter class): SQLite and PostgreSQL spell SQL differently.
  const shapes = new Map<unknown, Shape>();
  const shapeFor = (db: Kysely<DB>, arity: number): Shape => {
    const engine = db.getExecutor().adapter.constructor;
    let shape = shapes.get(engine);
    if (!shape) {
      const marks = Array.from({ length: arity }, (_, i) => `\u0000compiled-arg-${i}\u0000`);
      const query = build(db, ...(marks as unknown as A)).compile();
      shape = {
        sql: options.planEachCall ? query.sql : fixedShape(query.sql),
        args: query.parameters.map((p) => marks.indexOf(p as string)),
        constants: [...query.parameters],
      };
      shapes.set(engine, shape);
    }
    return shape;
  };
  return (db, args) => {
    const { sql, args: from, constants } = shapeFor(db, args.length);
    const parameters = new Array<unknown>(from.length);
    for (let i = 0; i < from.length; i++) {
      const arg = from[i]!;
      parameters[i] = arg >= 0 ? args[arg] : constants[i];
    }
    return { sql, parameters };
  };
}

/** `values` from `offset` on as a row of `columns`: how a shape's build names its arguments. */
export function rowFrom(columns: readonly string[], values: readonly unknown[], offset = 0): never {
  return Object.fromEntries(columns.map((column, i) => [column, values[offset + i]])) as never;
}

/** The values of `row` in the order of `columns`: the arguments of a shape built by `rowFrom`. */
export function valuesIn<R>(row: R, columns: readonly (keyof R)[]): unknown[] {
  const values = new Array<unknown>(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = row[columns[i]!];
  return values;
}

/**
 * A one-row insert into `table`, compiled once (see `compiled`). `columnSet` names
 * every column of the table (`{ id: true, … }`), so the compiler refuses a list
 * that misses one.
 */
export function compiledInsert<T extends keyof DB & string>(
  table: T,
  columnSet: Record<keyof DB[T] & string, true>,
): (db: Kysely<DB>, row: Record<string, unknown>) => Promise<void> {
  const columns = Object.keys(columnSet);
  const run = compiled((db: Kysely<DB>, ...values: unknown[]) =>
    db.insertInto(table).values(rowFrom(columns, values)),
  );
  return async (db, row) => {
    await run(db, ...valuesIn(row, columns));
  };
}

/**
 * Inserts rows into `table` in one statement: a single row (a one-to-one send)
 * through its compiled shape (see `compiledInsert`), several as one multi-row insert.
 */
export function compiledInsertRows<T extends keyof DB & string>(
  table: T,
  columnSet: Record<keyof DB[T] & string, true>,
): (db: Kysely<DB>, rows: Record<string, unknown>[]) => Promise<void> {
  const insertOne = compiledInsert(table, columnSet);
  return async (db, rows) => {
    if (rows.length === 1) await insertOne(db, rows[0]!);
    else if (rows.length > 1)
      await db
        .insertInto(table)
        .values(rows as never)
        .execute();
  };
}
