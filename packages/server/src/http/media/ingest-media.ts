// An inbound MMS's media for the media store (docs/behaviour.md#media): fetched at once, the
// kept ones listed on Switchboard's signed links and handed to `receiveMessage` to store with
// the text (so a refused or repeated text keeps none), the others listed as not kept, with
// why. The message arrives either way.
import { Buffer } from 'node:buffer';
import type { Dispatcher } from 'undici';
import type { MediumToKeep } from '../../commands/store-media.ts';
import type { Config } from '../../config.ts';
import { mediaContentType } from '../../domain/media.ts';
import type { MediaItem } from '../../domain/media-store.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { fetchMedia } from './fetch-media.ts';
import { mediaLink } from './media-links.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IngestDeps {
  secrets: SecretBox;
  config: Config;
  clock: Clock;
  dispatcher: Dispatcher;
}

export interface IngestedMedia {
  /** The message's `media`, in the order of the URLs. */
  media: MediaItem[];
  /** The bytes of the kept items, for `receiveMessage` to store. */
  keep: MediumToKeep[];
}

export async function ingestMedia(
  deps: IngestDeps,
  urls: readonly string[],
  authorization?: string,
): Promise<IngestedMedia> {
  const fetched = await Promise.all(
    urls.map((url) => fetchMedia(url, { dispatcher: deps.dispatcher, authorization })),
  );
  const now = deps.clock.now();
  // A link lasts as long as its medium is kept (the retention period).
  const expiresAt = now + deps.config.retentionDays * DAY_MS;
  const keep: MediumToKeep[] = [];
  const media = fetched.map((f, index): MediaItem => {
    if (f.ok) {
      const id = newId('med', now);
      keep.push({ id, contentType: f.contentType, data: f.data.toString('base64') });
      return {
        url: mediaLink(deps.secrets, deps.config.publicUrl, id, expiresAt),
        contentType: f.contentType,
        size: Buffer.byteLength(f.data),
      };
    }
    return {
      url: urls[index]!,
      contentType: f.contentType || mediaContentType(urls[index]!),
      size: f.size,
      kept: false,
      reason: f.reason,
    };
  });
  return { media, keep };
}
