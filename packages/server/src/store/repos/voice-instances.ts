import type { Kysely, Selectable } from 'kysely';
import type { DB, VoiceInstancesTable } from '../schema.ts';

export type VoiceInstanceRow = Selectable<VoiceInstancesTable>;

/** Records that run `row.run_id` is alive at `row.seen_at`, reachable at `row.sip_address`. */
export async function upsertVoiceInstance(db: Kysely<DB>, row: VoiceInstanceRow): Promise<void> {
  await db
    .insertInto('voice_instances')
    .values(row)
    .onConflict((oc) =>
      oc.column('run_id').doUpdateSet({ sip_address: row.sip_address, seen_at: row.seen_at }),
    )
    .execute();
}

/** Removes run `runId`'s row (its instance stops). */
export async function deleteVoiceInstance(db: Kysely<DB>, runId: string): Promise<void> {
  await db.deleteFrom('voice_instances').where('run_id', '=', runId).execute();
}

/** Removes the rows unseen since `before` (instances that stopped without saying so). */
export async function deleteStaleVoiceInstances(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('voice_instances').where('seen_at', '<', before).execute();
}

/** The instances seen since `since`, oldest run first (routing, not an account's data). */
export function liveVoiceInstances(db: Kysely<DB>, since: number): Promise<VoiceInstanceRow[]> {
  return db
    .selectFrom('voice_instances')
    .selectAll()
    .where('seen_at', '>=', since)
    .orderBy('run_id')
    .execute();
}
