import { validationError } from './errors.ts';
import { MAX_MEDIA_URLS } from './media.ts';
import { isE164 } from './phone.ts';
import { segmentCount } from './segments.ts';
import { requireNoNul } from './text-rules.ts';

/** Longest body, in characters (code points) after trimming. */
export const MAX_BODY_CHARACTERS = 1600;
/** Most recipients of one send, and most participants of a group. */
export const MAX_RECIPIENTS = 10;

/** Throws `422` naming `param` unless `value` is an E.164 number. */
export function requireE164(value: string, param: string): void {
  if (!isE164(value)) {
    throw validationError(param, `${param} must be an E.164 number, such as +14155550100.`);
  }
}

/**
 * Checks `mediaUrls`: at most ten, each an absolute `https://` URL the carrier
 * can fetch. Returns the list (empty when absent).
 */
export function checkMediaUrls(
  mediaUrls: string[] | undefined,
  { allowHttp = false }: { allowHttp?: boolean } = {},
): string[] {
  const urls = mediaUrls ?? [];
  if (urls.length > MAX_MEDIA_URLS) {
    throw validationError('mediaUrls', `mediaUrls may hold at most ${MAX_MEDIA_URLS} URLs.`);
  }
  urls.forEach((url, i) => {
    const parsed = URL.canParse(url) ? new URL(url) : null;
    const http = parsed?.protocol === 'https:' || (allowHttp && parsed?.protocol === 'http:');
    if (!parsed || !http || !parsed.hostname) {
      throw validationError(`mediaUrls[${i}]`, `mediaUrls[${i}] must be an https:// URL.`);
    }
  });
  return urls;
}

/**
 * Checks the body: 1 to 1600 characters after trimming, or empty only when the
 * message carries media (an MMS). Returns the number of segments carriers
 * will bill (an MMS is one message).
 */
export function checkBody(body: string | undefined, hasMedia: boolean): number {
  requireNoNul(body, 'body');
  const trimmed = (body ?? '').trim();
  if (trimmed.length === 0) {
    if (hasMedia) return 1;
    throw validationError(
      'body',
      'body must not be empty (it may be omitted only with mediaUrls).',
    );
  }
  if ([...trimmed].length > MAX_BODY_CHARACTERS) {
    throw validationError('body', `body may hold at most ${MAX_BODY_CHARACTERS} characters.`);
  }
  return hasMedia ? 1 : segmentCount(body ?? '');
}

/**
 * Normalises `to`: a string or an array of 1 to 10 distinct E.164 numbers,
 * none equal to `from`. Returns the list of recipients.
 */
export function checkRecipients(to: string | string[], from: string): string[] {
  const list = Array.isArray(to) ? to : [to];
  if (list.length === 0) throw validationError('to', 'to must name at least one recipient.');
  if (list.length > MAX_RECIPIENTS) {
    throw validationError('to', `to may name at most ${MAX_RECIPIENTS} recipients.`);
  }
  const seen = new Set<string>();
  list.forEach((phone, i) => {
    const param = Array.isArray(to) ? `to[${i}]` : 'to';
    requireE164(phone, param);
    if (phone === from) throw validationError(param, 'to must differ from from.');
    if (seen.has(phone)) throw validationError(param, `${phone} is listed twice in to.`);
    seen.add(phone);
  });
  return list;
}
