import { mediaContentType } from '../domain/media.ts';
import type { MediaView } from '../presenters/message.ts';
import { findMediaById } from '../store/repos/media.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/** The path of Switchboard's own link to a kept medium (http/media/media-links.ts). */
const OWN_LINK = /^\/v1\/media\/(med_[0-9A-Za-z]+)$/;

/**
 * What a sent MMS lists of its media (docs/behaviour.md#media): a link to one of the account's
 * own kept media (a picture from the softphone's picker) reports what was stored, its type and
 * size; any other URL its type from the extension, as carriers guess it.
 */
export async function outboundMedia(
  tx: WriteTx,
  accountId: string,
  urls: readonly string[],
): Promise<MediaView[]> {
  return Promise.all(
    urls.map(async (url): Promise<MediaView> => {
      const id = OWN_LINK.exec(new URL(url).pathname)?.[1];
      // Another account's medium is described as any URL is: its facts are not this one's.
      const row = id === undefined ? undefined : await findMediaById(tx.db, id);
      if (row && row.account_id === accountId) {
        return { url, contentType: row.content_type, size: row.size };
      }
      return { url, contentType: mediaContentType(url) };
    }),
  );
}
