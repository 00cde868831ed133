import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../src/store/store.ts';

/**
 * Columns that change on a request without being what it stored: a key's
 * `last_used_at` is written by any authenticated request, at most once a minute
 * (http/plugins/auth.ts), as bookkeeping, and not awaited by the request.
 */
const BOOKKEEPING: Record<string, string[]> = { api_keys: ['last_used_at'] };

/** Every table of the store's database, migrations' own included. */
export async function tableNames(store: Store): Promise<string[]> {
  const tables = await store.db.introspection.getTables();
  return tables.map((table) => table.name).sort();
}

/** A table's rows as sorted JSON lines: order-free, so equal contents compare equal. */
async function tableLines(store: Store, table: string): Promise<string[]> {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(
    store.db,
  );
  const skip = BOOKKEEPING[table] ?? [];
  return rows
    .map((row) =>
      JSON.stringify(
        Object.entries(row).filter(([column]) => !skip.includes(column)),
        (_k, v) =>
          typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('hex') : v,
      ),
    )
    .sort();
}

/**
 * What the database holds, per table: its row count and a hash of all its rows.
 * Two snapshots are equal exactly when no row was added, removed or changed.
 */
export async function snapshotDatabase(
  store: Store,
  tables: string[],
): Promise<Record<string, string>> {
  // Side by side: a pool's connections each read one table (PostgreSQL); SQLite's one reader queues them.
  const contents = await Promise.all(tables.map((table) => tableLines(store, table)));
  return Object.fromEntries(
    contents.map((lines, i) => {
      const hash = createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
      return [tables[i]!, `${lines.length} rows ${hash}`];
    }),
  );
}
