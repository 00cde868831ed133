import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../src/store/store.ts';

/**
 * Columns that change on a request without being what it stored: a key's
 * `last_used_at` is written by any authenticated request, at most once a minute
 * (http/plugins/auth.ts), as bookkeeping, and not awaited by the request.
 */
const BOOKKEEPING: Record<string, string[]> = { api_keys: ['last_used_at'] };

/** A table and the columns a snapshot compares. */
export interface SnapshotTable {
  name: string;
  columns: string[];
}

/** Every table of the store's database, with its columns but bookkeeping ones. */
export async function snapshotTables(store: Store): Promise<SnapshotTable[]> {
  const tables = await store.db.introspection.getTables();
  return tables
    .map((table) => ({
      name: table.name,
      columns: table.columns
        .map((column) => column.name)
        .filter((column) => !(BOOKKEEPING[table.name] ?? []).includes(column)),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * One statement that reads, per table, its row count and all its rows as one text in
 * a fixed order, so no row object is made: a snapshot is taken after every refused
 * request, and making rows cost more than the request. PostgreSQL hashes the text
 * itself (md5 is only a fingerprint here); SQLite hands it over.
 */
function snapshotQuery(engine: Store['engine'], tables: SnapshotTable[]): string {
  return tables
    .map(({ name, columns }) => {
      const table = quoted(name);
      if (engine === 'postgres') {
        const row = `row(${columns.map(quoted).join(', ')})::text`;
        return `select '${name}' as t, count(*)::int as n, md5(coalesce(string_agg(${row}, E'\\n' order by ${row}), '')) as h from ${table}`;
      }
      const row = columns.map((column) => `quote(${quoted(column)})`).join(` || ',' || `);
      return `select '${name}' as t, count(*) as n, group_concat(${row}, char(10) order by rowid) as h from ${table}`;
    })
    .join(' union all ');
}

/**
 * What the database holds, per table: its row count and a hash of all its rows.
 * Two snapshots are equal exactly when no row was added, removed or changed.
 */
export async function snapshotDatabase(
  store: Store,
  tables: SnapshotTable[],
): Promise<Record<string, string>> {
  const { rows } = await sql
    .raw<{ t: string; n: number; h: string | null }>(snapshotQuery(store.engine, tables))
    .execute(store.db);
  return Object.fromEntries(
    rows.map(({ t, n, h }) => {
      const hash = createHash('sha256')
        .update(h ?? '')
        .digest('hex')
        .slice(0, 16);
      return [t, `${n} rows ${hash}`];
    }),
  );
}
