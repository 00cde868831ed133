// How numbers, times and durations read in the app. Stored values stay E.164 and ISO 8601.

const NANP = /^\+1(\d{3})(\d{3})(\d{4})$/;

/** `+14155550123` as `(415) 555-0123`; numbers of other countries keep their E.164 form. */
export function formatPhone(e164: string): string {
  const nanp = NANP.exec(e164);
  if (nanp) return `(${nanp[1]}) ${nanp[2]}-${nanp[3]}`;
  return e164;
}

/**
 * What a person typed as a phone number, as E.164, or null. Ten digits are taken as a North
 * American number (the sandbox's numbers are), anything else must carry its `+country` prefix.
 */
export function toE164(input: string): string | null {
  const trimmed = input.trim();
  const digits = trimmed.replace(/[\s().-]/g, '');
  if (/^\+[1-9]\d{6,14}$/.test(digits)) return digits;
  if (/^\d{10}$/.test(digits)) return `+1${digits}`;
  if (/^1\d{10}$/.test(digits)) return `+${digits}`;
  return null;
}

const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate());
const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days between the calendar days of `date` and `now` (0 = today). */
function daysAgo(date: Date, now: Date): number {
  return Math.round((startOfDay(now).getTime() - startOfDay(date).getTime()) / DAY_MS);
}

/** Clock time, `3:04 PM` in the reader's locale. */
export function formatClock(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
}

/** A list's compact time: the clock today, the weekday this week, else the date. */
export function formatShortTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  const days = daysAgo(date, now);
  if (days <= 0) return formatClock(iso);
  if (days === 1) return 'Yesterday';
  if (days < 7) return date.toLocaleDateString(undefined, { weekday: 'short' });
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
}

/** A day heading in a thread: `Today`, `Yesterday`, or `Monday, March 4`. */
export function formatDay(iso: string, now = new Date()): string {
  const date = new Date(iso);
  const days = daysAgo(date, now);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleDateString(undefined, {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
}

/** Full date and time, for tooltips and logs. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}

/** A call's length: `42s`, `3m 05s`, `1h 02m`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** Up to two initials for an avatar: `Ada Lovelace` → `AL`; a number → `#`. */
export function initials(name: string | null): string {
  if (!name) return '#';
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length === 1 ? [...words[0]!].slice(0, 2) : words.map((w) => [...w][0]);
  return letters.slice(0, 2).join('').toUpperCase() || '#';
}

/** Human wording for a message's `failureReason` code. */
export function describeFailure(reason: string | null): string {
  switch (reason) {
    case 'invalid_number':
      return 'Not a valid mobile number';
    case 'carrier_rejected':
      return 'Rejected by the carrier';
    case 'opted_out':
      return 'Recipient opted out (STOP)';
    case 'unreachable':
      return 'Handset unreachable';
    case null:
      return 'Not delivered';
    default:
      return reason.replaceAll('_', ' ');
  }
}
