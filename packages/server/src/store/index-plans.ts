import type { CompiledQuery, Kysely } from 'kysely';
import { engineOf } from './capabilities.ts';
import { fixedQuery, runCompiled } from './compiled.ts';

/**
 * Planner settings for the rest of a PostgreSQL transaction, for statements whose
 * best plan PostgreSQL cannot see for itself. SQLite plans by its indexes without
 * asking, and gets none.
 */

/**
 * PostgreSQL reads a table through an index wherever one fits, never from end to end.
 *
 * The carrier side's batch statements look up a few hundred rows by key (a receipt
 * batch's carrier references, the recipients a batch moves), and each key matches one
 * row. PostgreSQL cannot know that of a table it holds no statistics for: a new table,
 * or one grown since its last ANALYZE (autovacuum comes a minute or more after a
 * burst, and not at all on a server that turns it off). It then guesses that each key
 * matches 0.5 % of the rows, and for a batch of 50 it read the whole recipients table
 * instead (15–25 ms at 40 000–130 000 recipients, growing with the table, against
 * 0.4–0.7 ms by the index). These statements are the carrier side's every receipt;
 * under the POST load they ran many times a second, on the cores the sends need.
 *
 * Joins are left to the planner: a batch's rows joined with what its own CTE changed
 * (a few hundred each) are hashed best, and with hash joins off too that join took
 * 17 ms. Turning sequential scans off makes them cost 10^10, not impossible; a plan
 * that costly would also be compiled by the JIT (~190 ms), which goes off with them.
 */
const INDEXED_PLANS = fixedQuery(
  "select set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)",
);

/**
 * PostgreSQL walks an index in its order and takes each row it finds by key: plain
 * index scans, nested loops, and (as INDEXED_PLANS) never a table from end to end.
 * For a claim of due rows, which reads the due set's index from its start and stops at
 * its limit.
 *
 * A settled delivery leaves its entry in the due set's index, pointing at the row it
 * deleted, until VACUUM comes by (autovacuum, a minute or more after a burst). A plain
 * index scan that finds such an entry dead marks it so, and later scans skip it; a
 * bitmap scan, which the planner picks for a claim whenever it expects few due rows,
 * never marks one. So every claim of a burst walked every delivery settled since the
 * last VACUUM: 60 000 of them cost each claim 7 ms, and the fan-out fell by a third
 * from its first 20 000 deliveries to its fourth (docs/benchmarks.md).
 *
 * Each due row is joined to its delivery (its lease) by key. Without statistics the
 * planner expected few deliveries to pass a claim's filters and hashed them all,
 * reading the deliveries' whole key index at every claim (30–100 ms with 20 000 of
 * them, growing with the table), where the walk of the due set takes a claim's rows
 * and stops.
 */
const INDEX_WALKS = fixedQuery(
  "select set_config('enable_bitmapscan', 'off', true), set_config('enable_hashjoin', 'off', true), " +
    "set_config('enable_mergejoin', 'off', true), set_config('enable_seqscan', 'off', true), " +
    "set_config('jit', 'off', true)",
);

/**
 * Runs `statement` after `settings` on PostgreSQL. The settings are sent first and
 * not awaited alone: on the lane's pipelined connection both leave together, and the
 * statement is planned under them.
 */
async function after<T, R>(
  settings: CompiledQuery,
  db: Kysely<T>,
  statement: () => Promise<R>,
): Promise<R> {
  if (engineOf(db) !== 'postgres') return statement();
  const [, result] = await Promise.all([runCompiled(db, settings), statement()]);
  return result;
}

/** `statement`, and the rest of `db`'s transaction, on indexes (see INDEXED_PLANS). */
export function withIndexedPlans<T, R>(db: Kysely<T>, statement: () => Promise<R>): Promise<R> {
  return after(INDEXED_PLANS, db, statement);
}

/** `statement`, and the rest of `db`'s transaction, on walks of indexes (see INDEX_WALKS). */
export function withIndexWalks<T, R>(db: Kysely<T>, statement: () => Promise<R>): Promise<R> {
  return after(INDEX_WALKS, db, statement);
}
