import type { Kysely } from 'kysely';
import type { DB } from '../schema.ts';

/** Records the claim to push `eventKey`; true for the one caller that made it. */
export async function insertPushClaim(
  db: Kysely<DB>,
  eventKey: string,
  now: number,
): Promise<boolean> {
  const rows = await db
    .insertInto('push_claims')
    .values({ event_key: eventKey, claimed_at: now })
    .onConflict((oc) => oc.column('event_key').doNothing())
    .returning('event_key')
    .execute();
  return rows.length > 0;
}

/** Forgets claims made before `before`, at most `limit` of them. */
export async function deletePushClaimsBefore(
  db: Kysely<DB>,
  before: number,
  limit: number,
): Promise<void> {
  await db
    .deleteFrom('push_claims')
    .where(
      'event_key',
      'in',
      db
        .selectFrom('push_claims')
        .select('event_key')
        .where('claimed_at', '<', before)
        .orderBy('claimed_at')
        .limit(limit),
    )
    .execute();
}
