// Switchboard's own links to kept media (docs/behaviour.md#media): `/v1/media/{id}?token=…`,
// the token the secret box's seal of the id and the link's end, so a link cannot be made or
// altered without the key, and works without an API key (webhook consumers) until it ends.
import type { SecretBox } from '../../lib/secret-box.ts';

/** The link to medium `id`, valid until `expiresAt` (ms), on `base` (SWITCHBOARD_PUBLIC_URL, or none). */
export function mediaLink(
  secrets: SecretBox,
  base: string | null,
  id: string,
  expiresAt: number,
): string {
  const token = secrets.seal(`${id} ${expiresAt}`);
  return `${base ?? ''}/v1/media/${id}?token=${encodeURIComponent(token)}`;
}

/** Whether `token` is a link to `id` that has not ended at `now`; false when altered. */
export function mediaTokenValid(
  secrets: SecretBox,
  id: string,
  token: string | undefined,
  now: number,
): boolean {
  if (!token) return false;
  let opened: string;
  try {
    opened = secrets.open(token);
  } catch {
    return false;
  }
  const [named, ends] = opened.split(' ');
  return named === id && Number(ends) > now;
}
