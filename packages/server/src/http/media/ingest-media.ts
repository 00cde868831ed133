// An inbound MMS's media into the media store (docs/behaviour.md#media): fetched at once, the
// kept ones stored in one command and listed on Switchboard's signed links, the others listed
// as not kept, with why. The message arrives either way.
import { Buffer } from 'node:buffer';
import type { Dispatcher } from 'undici';
import type { Changes } from '../../commands/changes.ts';
import type { Config } from '../../config.ts';
import { mediaContentType } from '../../domain/media.ts';
import type { MediaItem } from '../../domain/media-store.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { fetchMedia } from './fetch-media.ts';
import { mediaLink } from './media-links.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IngestDeps {
  changes: Changes;
  secrets: SecretBox;
  config: Config;
  clock: Clock;
  dispatcher: Dispatcher;
}

export async function ingestMedia(
  deps: IngestDeps,
  accountId: string,
  urls: readonly string[],
  authorization?: string,
): Promise<MediaItem[]> {
  const fetched = await Promise.all(
    urls.map((url) => fetchMedia(url, { dispatcher: deps.dispatcher, authorization })),
  );
  const kept = fetched.flatMap((f) => (f.ok ? [f] : []));
  const { ids } =
    kept.length === 0
      ? { ids: [] as string[] }
      : await deps.changes.run('storeMedia', {
          accountId,
          items: kept.map((f) => ({ contentType: f.contentType, data: f.data.toString('base64') })),
        });
  // A link lasts as long as its medium is kept (the retention period).
  const expiresAt = deps.clock.now() + deps.config.retentionDays * DAY_MS;
  let next = 0;
  return fetched.map((f, index) => {
    if (f.ok) {
      const id = ids[next++]!;
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
}
