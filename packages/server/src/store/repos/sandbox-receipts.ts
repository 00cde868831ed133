import { sql, type Kysely, type Selectable } from 'kysely';
import type { Capabilities } from '../capabilities.ts';
import type { DB, SandboxReceiptsTable } from '../schema.ts';

export type SandboxReceiptRow = Selectable<SandboxReceiptsTable>;

/** Schedules receipts the sandbox carrier will report. */
export async function insertSandboxReceipts(
  db: Kysely<DB>,
  rows: SandboxReceiptRow[],
): Promise<void> {
  if (rows.length > 0) await db.insertInto('sandbox_receipts').values(rows).execute();
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

/** Forgets a reported receipt. */
export async function deleteSandboxReceipt(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('sandbox_receipts').where('id', '=', id).execute();
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
