import { useSyncExternalStore } from 'react';

let message = '';
let flip = false;
const listeners = new Set<() => void>();

/**
 * Tells screen-reader users about something that happened off to the side (a new text, a missed
 * call) through one polite live region, without moving their focus.
 */
export function announce(text: string): void {
  // A repeat of the same words must still be read, so alternate an invisible suffix.
  flip = !flip;
  message = flip ? text : `${text}\u00a0`;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The live region {@link announce} writes to; rendered once, at the root. */
export function LiveAnnouncer() {
  const text = useSyncExternalStore(subscribe, () => message);
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
      {text}
    </div>
  );
}
