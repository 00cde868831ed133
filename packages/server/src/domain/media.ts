const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  bmp: 'image/bmp',
  mp4: 'video/mp4',
  '3gp': 'video/3gpp',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  amr: 'audio/amr',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  pdf: 'application/pdf',
  vcf: 'text/vcard',
  txt: 'text/plain',
};

/** The content type of a media URL, from its file extension (carriers send it with MMS parts). */
export function mediaContentType(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (extension && TYPES[extension]) || 'application/octet-stream';
}

/** Most media URLs on one message. */
export const MAX_MEDIA_URLS = 10;
