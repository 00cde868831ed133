import type { Contact, Message } from '@switchboard/sdk';
import type { CallLogEntry, Conversation, Me, Mode } from './types.ts';

/**
 * What this device last saw, kept in localStorage so the installed app opened offline shows
 * the inbox and its threads (read-only) instead of an error page. Per user and mode; dropped
 * when the user signs out on this device.
 */
export interface CachedView {
  conversations: Conversation[] | null;
  threads: Record<string, Message[]>;
  calls: CallLogEntry[] | null;
  contacts: Contact[] | null;
}

const LAST_ME = 'switchboard.offline.me';
const viewKey = (userId: string, mode: Mode) => `switchboard.offline.view.${userId}.${mode}`;
/** The threads kept: the most recently opened ones. */
const MAX_THREADS = 30;

function read<T>(key: string): T | null {
  try {
    const text = window.localStorage.getItem(key);
    return text === null ? null : (JSON.parse(text) as T);
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Full or refused (a private window): the app still works online.
  }
}

/** The signed-in user this device saw last: who the app opens as when offline. */
export function lastMe(): Me | null {
  return read<Me>(LAST_ME);
}

export function rememberMe(me: Me): void {
  write(LAST_ME, me);
}

export function cachedView(userId: string, mode: Mode): CachedView | null {
  return read<CachedView>(viewKey(userId, mode));
}

export function saveView(userId: string, mode: Mode, view: CachedView): void {
  const ids = Object.keys(view.threads);
  const threads =
    ids.length <= MAX_THREADS
      ? view.threads
      : Object.fromEntries(ids.slice(-MAX_THREADS).map((id) => [id, view.threads[id]!]));
  write(viewKey(userId, mode), { ...view, threads });
}

/** Forgets what this device kept of a user (signed out here, or removed). */
export function forgetUser(userId: string): void {
  try {
    const storage = window.localStorage;
    for (const mode of ['test', 'live'] as const) storage.removeItem(viewKey(userId, mode));
    if (read<Me>(LAST_ME)?.user.id === userId) storage.removeItem(LAST_ME);
  } catch {
    // Nothing was kept.
  }
}
