import type { Kysely } from 'kysely';
import { engineOf } from './capabilities.ts';
import { fixedQuery, runCompiled } from './compiled.ts';

/**
 * For the rest of the transaction, PostgreSQL reads a table through an index wherever
 * one fits, never from end to end.
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
 * On PostgreSQL, sends the settings above for the rest of `db`'s transaction and
 * returns the statement's promise, to be awaited with the statement it precedes (on
 * a pipelined connection the two leave together); null on SQLite, which plans by its
 * indexes without asking.
 */
export function indexedPlans<T>(db: Kysely<T>): Promise<unknown> | null {
  return engineOf(db) === 'postgres' ? runCompiled(db, INDEXED_PLANS) : null;
}
