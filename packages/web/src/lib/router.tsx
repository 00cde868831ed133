import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** Where the app is: the path under the origin, its query, and the history state it was given. */
export interface Route {
  path: string;
  search: URLSearchParams;
  state: unknown;
}

const CHANGE = 'switchboard:navigate';
let current: { key: string; state: unknown; route: Route } | null = null;

// useSyncExternalStore needs the same object back until something really changed.
function read(): Route {
  const { pathname, search } = window.location;
  const state: unknown = window.history.state;
  const key = pathname + search;
  if (current === null || current.key !== key || current.state !== state) {
    const path = pathname.replace(/\/+$/, '') || '/';
    current = { key, state, route: { path, search: new URLSearchParams(search), state } };
  }
  return current.route;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

/** The current route; components re-render when it changes. */
export function useRoute(): Route {
  return useSyncExternalStore(subscribe, read);
}

/**
 * Goes to `to` without reloading. `state` rides along in history (a deep link's draft, say), so
 * it survives back and forward but never shows in the address bar.
 */
export function navigate(to: string, options: { replace?: boolean; state?: unknown } = {}): void {
  const state = options.state ?? null;
  if (options.replace) window.history.replaceState(state, '', to);
  else window.history.pushState(state, '', to);
  window.dispatchEvent(new Event(CHANGE));
}

/** An in-app link: a real `<a href>` (so it opens in a new tab too) that navigates in place. */
export function Link(
  props: AnchorHTMLAttributes<HTMLAnchorElement> & {
    href: string;
    /** History state, or a function making it at each click (a fresh one every time). */
    state?: unknown;
  },
) {
  const { state, onClick, ...rest } = props;
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href, {
      state: typeof state === 'function' ? (state as () => unknown)() : state,
    });
  };
  return <a {...rest} onClick={handle} />;
}
