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
 * PostgreSQL plans a named statement once, for every call, on plain index scans joined
 * by nested loops.
 *
 * For the webhook lane's statements: a batch of settlements, whose every row comes
 * from an array parameter and is found by its key, and a claim, which walks the due
 * index in order and takes what it found by key. That plan is right for any length of
 * list and any size of table. Planned for each call instead, as an unnamed statement
 * is, a settlement spent ~0.5 ms of PostgreSQL's time being parsed and planned, as
 * much as 15 of its rows took to write, and a claim ~0.4 ms (docs/benchmarks.md).
 * Named and planned once without these settings, such a statement is planned for a
 * list of unknown length on a table that may hold no statistics, and can come out a
 * hash join over the whole table (see ShapeOptions); with them there is no other
 * plan to choose.
 *
 * Plain index scans, not bitmap scans: a settled delivery leaves its entry in the due
 * index, pointing at the row version it had while pending, until VACUUM comes by
 * (autovacuum, a minute or more after a burst). A plain index scan that finds such an
 * entry dead marks it so, and later scans skip it; a bitmap scan, which the planner
 * picks for a claim whenever it expects few due rows, never marks one. So every claim
 * of a burst walked every delivery settled since the last VACUUM: 60 000 of them cost
 * each claim 7 ms, and the fan-out fell by a third from its first 20 000 deliveries to
 * its fourth (docs/benchmarks.md).
 */
const FIXED_INDEX_PLANS = fixedQuery(
  "select set_config('plan_cache_mode', 'force_generic_plan', true), " +
    "set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), " +
    "set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), " +
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

/**
 * `statement`, a named one, and the rest of `db`'s transaction, planned once for every
 * call, on plain index scans and nested loops (see FIXED_INDEX_PLANS).
 */
export function withFixedIndexPlans<T, R>(db: Kysely<T>, statement: () => Promise<R>): Promise<R> {
  return after(FIXED_INDEX_PLANS, db, statement);
}
