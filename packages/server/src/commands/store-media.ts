import { validationError } from '../domain/errors.ts';
import { mediaRefusal } from '../domain/media-store.ts';
import { newId } from '../lib/ids.ts';
import { insertMedia } from '../store/repos/media.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** Items fetched from a provider, to keep: their type and their bytes as base64. */
export interface StoreMediaInput {
  accountId: string;
  items: { contentType: string; data: string }[];
}

/** A fetched item to keep under the id its signed link already names. */
export interface MediumToKeep {
  id: string;
  contentType: string;
  data: string;
}

/**
 * Keeps the media of an inbound MMS in the database (docs/behaviour.md#media), each checked
 * again (type, 5 MB); answers their ids, in order.
 */
export async function storeMedia(
  tx: WriteTx,
  input: StoreMediaInput,
  deps: CommandDeps,
): Promise<{ ids: string[] }> {
  const now = deps.clock.now();
  const items = input.items.map((item) => ({ ...item, id: newId('med', now) }));
  await keepMedia(tx, input.accountId, items, now);
  return { ids: items.map((i) => i.id) };
}

/** Stores items in the transaction of the text they came with, so neither is kept alone. */
export async function keepMedia(
  tx: WriteTx,
  accountId: string,
  items: readonly MediumToKeep[],
  now: number,
): Promise<void> {
  const rows = items.map((item, index) => {
    const size = Buffer.byteLength(item.data, 'base64');
    const refusal = mediaRefusal(item.contentType, size);
    if (refusal) throw validationError(`items[${index}]`, refusal);
    return {
      id: item.id,
      account_id: accountId,
      content_type: item.contentType,
      size,
      data: item.data,
      created_at: now,
    };
  });
  await insertMedia(tx.db, rows);
}
