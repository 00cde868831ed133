/** A teammate as a note can mention them. */
export interface Mentionable {
  id: string;
  name: string;
  email: string;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The teammates a note mentions: `@` followed by a full name, a first name or the part of
 * the email before `@`, case-insensitively and not inside a longer word ("@Ann" does not
 * mention Anna). Typed, not picked, so a note reads the same on every device.
 */
export function mentionedIn(body: string, team: Mentionable[]): string[] {
  const found: string[] = [];
  for (const person of team) {
    const handles = [person.name, person.name.split(/\s+/)[0] ?? '', person.email.split('@')[0]!]
      .map((h) => h.trim())
      .filter((h) => h.length > 0);
    const mentioned = handles.some((handle) =>
      new RegExp(`(^|[^\\p{L}\\p{N}_])@${escape(handle)}(?![\\p{L}\\p{N}_])`, 'iu').test(body),
    );
    if (mentioned) found.push(person.id);
  }
  return found;
}

/** The longest an internal note may be, in characters. */
export const NOTE_MAX_LENGTH = 4000;
