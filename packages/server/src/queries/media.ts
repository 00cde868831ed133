import type { Kysely } from 'kysely';
import { findMediaById, type MediaRow } from '../store/repos/media.ts';
import type { DB } from '../store/schema.ts';

/** A kept medium, as its signed link names it. */
export function findMedia(db: Kysely<DB>, id: string): Promise<MediaRow | undefined> {
  return findMediaById(db, id);
}
