// Fetches one inbound medium from its provider at once, before its URL expires: through the
// webhook SSRF guard (private addresses refused unless SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=1),
// with the provider's credentials on its own origin only (Twilio answers with a redirect to
// its CDN), and never more than 5 MB read.
import type { Dispatcher } from 'undici';
import { bareContentType, MAX_MEDIA_BYTES, mediaRefusal } from '../../domain/media-store.ts';

export type Fetched =
  | { ok: true; contentType: string; data: Buffer }
  | { ok: false; contentType: string; size: number | null; reason: string };

const MAX_REDIRECTS = 3;

export async function fetchMedia(
  url: string,
  options: { dispatcher: Dispatcher; authorization?: string | undefined },
): Promise<Fetched> {
  // Loaded with the first medium, not at start: the HTTP thread keeps to the parts of undici
  // its webhook deliveries use until an MMS arrives (thread-modules.test.ts).
  const { request } = await import('undici');
  let at = new URL(url);
  const origin = at.origin;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(at, {
        dispatcher: options.dispatcher,
        headers:
          options.authorization && at.origin === origin
            ? { authorization: options.authorization }
            : {},
      });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { ok: false, contentType: '', size: null, reason: `Could not be fetched: ${why}` };
    }
    const location = answer.headers.location;
    if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string') {
      await answer.body.dump();
      at = new URL(location, at);
      continue;
    }
    const contentType = bareContentType(answer.headers['content-type'] as string | undefined);
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return {
        ok: false,
        contentType,
        size: null,
        reason: `Could not be fetched: HTTP ${answer.statusCode}.`,
      };
    }
    const declared = Number(answer.headers['content-length']);
    const early = mediaRefusal(contentType, Number.isFinite(declared) ? declared : 0);
    if (early) {
      await answer.body.dump();
      return {
        ok: false,
        contentType,
        size: Number.isFinite(declared) ? declared : null,
        reason: early,
      };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_MEDIA_BYTES) {
        answer.body.destroy();
        return { ok: false, contentType, size: null, reason: 'Larger than 5 MB.' };
      }
      chunks.push(chunk as Buffer);
    }
    return { ok: true, contentType, data: Buffer.concat(chunks) };
  }
  return {
    ok: false,
    contentType: '',
    size: null,
    reason: 'Could not be fetched: too many redirects.',
  };
}
