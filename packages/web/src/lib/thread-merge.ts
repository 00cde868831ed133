import type { Message } from '@switchboard/sdk';

/**
 * A thread as its load answered, with what the realtime channel pushed about it while
 * the load was in flight. The answer may have been read before those commits: a status
 * pushed meanwhile would be overwritten by an older copy, and a message created
 * meanwhile would be missing, with no later push to bring it back. Pushes arrive in
 * commit order, so the last one kept for a message is the newest its push has said;
 * anything newer that the answer already shows is pushed after it.
 */
export function withPushes(
  loaded: readonly Message[],
  pushed: ReadonlyMap<string, Message>,
): Message[] {
  if (pushed.size === 0) return [...loaded];
  const ids = new Set(loaded.map((m) => m.id));
  const merged = loaded.map((m) => pushed.get(m.id) ?? m);
  const created = [...pushed.values()].filter((m) => !ids.has(m.id));
  if (created.length === 0) return merged;
  // Oldest first, as threads are: ids grow with creation time.
  return [...merged, ...created].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
