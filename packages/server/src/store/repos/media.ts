import type { Kysely, Selectable } from 'kysely';
import { lowestIdAt } from '../../lib/ids.ts';
import type { DB, MediaTable } from '../schema.ts';
import { namesNothing } from '../text-limits.ts';

export type MediaRow = Selectable<MediaTable>;

export async function insertMedia(db: Kysely<DB>, rows: MediaRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('media').values(rows).execute();
}

/** One medium by id: its signed link names it, of whichever account. */
export function findMediaById(db: Kysely<DB>, id: string): Promise<MediaRow | undefined> {
  if (namesNothing(id)) return Promise.resolve(undefined);
  return db.selectFrom('media').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Removes up to `limit` media received before `before` (ids are time-ordered); how many. */
export async function deleteMediaBefore(
  db: Kysely<DB>,
  before: number,
  limit: number,
): Promise<number> {
  const ids = await db
    .selectFrom('media')
    .select('id')
    .where('id', '<', lowestIdAt('med', before))
    .orderBy('id')
    .limit(limit)
    .execute();
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom('media')
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
