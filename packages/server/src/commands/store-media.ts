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
  const rows = input.items.map((item, index) => {
    const size = Buffer.byteLength(item.data, 'base64');
    const refusal = mediaRefusal(item.contentType, size);
    if (refusal) throw validationError(`items[${index}]`, refusal);
    return {
      id: newId('med', now),
      account_id: input.accountId,
      content_type: item.contentType,
      size,
      data: item.data,
      created_at: now,
    };
  });
  await insertMedia(tx.db, rows);
  return { ids: rows.map((r) => r.id) };
}
