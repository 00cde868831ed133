import type { Kysely } from 'kysely';
import { lowestIdAt } from '../../lib/ids.ts';
import { claiming } from '../engine/capabilities.ts';
import type { DB } from '../schema.ts';

/** What one batch of the sweep of old events did. */
export interface EventSweepBatch {
  /** Old events looked at, at most the batch's limit: fewer means none is left after `last`. */
  examined: number;
  /** The last id looked at: the next batch starts after it. */
  last: string | null;
  /** Events removed, each with its deliveries and their attempts. */
  deleted: number;
}

/**
 * Looks at up to `limit` events made at or before `before`, after the id `after`, and
 * removes each whose deliveries have all ended (succeeded or failed), with those
 * deliveries and their attempts. An event with a delivery still pending (its first
 * attempt, or retrying) stays, attempts and all, until a later sweep. Old events are
 * found by their time-ordered ids, on the primary key.
 *
 * On PostgreSQL, where other instances and lanes write at the same time, the batch
 * takes only rows no other transaction holds (`skip locked`) and never waits in a lock:
 * two sweeps at once take different events; a delivery that a retry is re-arming is
 * held, so its event stays; a recovery holds the events it re-delivers (recoverWebhookEvents).
 */
export async function deleteEndedEventsBefore(
  db: Kysely<DB>,
  before: number,
  after: string,
  limit: number,
): Promise<EventSweepBatch> {
  const oldest = db
    .selectFrom('events')
    .select('id')
    .where('id', '>', after)
    .where('id', '<', lowestIdAt('evt', before + 1))
    .where('created_at', '<=', before)
    .orderBy('id')
    .limit(limit);
  const ids = (await claiming(db, oldest).execute()).map((row) => row.id);
  if (ids.length === 0) return { examined: 0, last: null, deleted: 0 };
  const ended = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('event_id', 'in', ids)
    .where('status', '<>', 'pending');
  const removable = new Set((await claiming(db, ended).execute()).map((row) => row.id));
  // Every delivery of these events: one not among those just taken is pending, or
  // held by another transaction, and its event stays.
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id'])
    .where('event_id', 'in', ids)
    .execute();
  const kept = new Set(deliveries.filter((d) => !removable.has(d.id)).map((d) => d.event_id));
  const gone = ids.filter((id) => !kept.has(id));
  if (gone.length > 0) {
    await db
      .deleteFrom('webhook_attempts')
      .where('delivery_id', 'in', (sub) =>
        sub.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', gone),
      )
      .execute();
    await db.deleteFrom('webhook_deliveries').where('event_id', 'in', gone).execute();
    await db.deleteFrom('events').where('id', 'in', gone).execute();
  }
  return { examined: ids.length, last: ids.at(-1)!, deleted: gone.length };
}
