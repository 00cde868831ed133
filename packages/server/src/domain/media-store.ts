// What the media store keeps of an inbound MMS (docs/behaviour.md#media): at most 5 MB an item,
// as carriers allow, and only the kinds handsets send; anything else is listed on the message
// as not kept, with why.

/** The most one item may weigh. */
export const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

/** The kinds kept: what handsets send. */
export const KEPT_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/heic',
  'image/heif',
  'image/bmp',
  'video/mp4',
  'video/3gpp',
  'video/quicktime',
  'audio/mpeg',
  'audio/mp4',
  'audio/amr',
  'audio/wav',
  'audio/ogg',
  'text/vcard',
  'text/x-vcard',
  'application/pdf',
]);

/** A content type as compared: lower case, without parameters. */
export function bareContentType(header: string | undefined | null): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Why an item is not kept, or null when it is. */
export function mediaRefusal(contentType: string, size: number): string | null {
  if (!KEPT_TYPES.has(contentType)) {
    return `Content type ${contentType || '(none)'} is not kept.`;
  }
  if (size > MAX_MEDIA_BYTES) return 'Larger than 5 MB.';
  return null;
}

/** One item of a message's `media`: kept (on Switchboard's link) or not (and why). */
export interface MediaItem {
  url: string;
  contentType: string;
  size: number | null;
  /** Present, false, on an item not kept; `reason` says why. */
  kept?: false;
  reason?: string;
}
