import { sql, type Kysely, type Selectable } from 'kysely';
import type { Capabilities } from '../capabilities.ts';
import type { DB, SandboxReceiptsTable } from '../schema.ts';

export type SandboxReceiptRow = Selectable<SandboxReceiptsTable>;

/** Rows per insert statement: 6 parameters each stays far below either engine's limit. */
const INSERT_CHUNK = 1000;

/** Schedules receipts the sandbox carrier will report. */
export async function insertSandboxReceipts(
  db: Kysely<DB>,
  rows: SandboxReceiptRow[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('sandbox_receipts')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

/** Claims up to `limit` due receipts for `leaseMs` (see claimOutbound for the locking). */
export function claimSandboxReceipts(
  db: Kysely<DB>,
  capabilities: Capabilities,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<SandboxReceiptRow[]> {
  return db
    .updateTable('sandbox_receipts')
    .set({ locked_until: now + leaseMs })
    .where('id', 'in', (eb) => {
      let q = eb
        .selectFrom('sandbox_receipts')
        .select('id')
        .where('due_at', '<=', now)
        .where('locked_until', '<=', now)
        .orderBy('due_at')
        .orderBy('id')
        .limit(limit);
      if (capabilities.skipLocked) q = q.forUpdate().skipLocked();
      return q;
    })
    .returningAll()
    .execute();
}

/** Forgets reported receipts. */
export async function deleteSandboxReceipts(db: Kysely<DB>, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('sandbox_receipts').where('id', 'in', ids).execute();
}

/** Gives up the lease on receipts, so the next round may report them again. */
export async function releaseSandboxReceipts(db: Kysely<DB>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('sandbox_receipts')
    .set({ locked_until: 0 })
    .where('id', 'in', ids)
    .execute();
}

/** The earliest due time of a pending receipt, or null. */
export async function nextSandboxReceiptDue(db: Kysely<DB>): Promise<number | null> {
  // A leased row is not due before its lease ends, whatever its own time says.
  const row = await db
    .selectFrom('sandbox_receipts')
    .select(
      sql<
        number | string | null
      >`min(case when due_at > locked_until then due_at else locked_until end)`.as('due'),
    )
    .executeTakeFirst();
  return row?.due == null ? null : Number(row.due);
}
