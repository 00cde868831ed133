import type { Mode, Push } from './types.ts';

/**
 * Whether pushes are arriving: `live` once the server said hello and while its heartbeats keep
 * coming, `offline` between attempts, `no-network` while the browser says it is offline.
 */
export type ConnectionState = 'connecting' | 'live' | 'offline' | 'no-network';

/** What the app hears from the channel. */
export interface RealtimeHandlers {
  /** Every push, `hello` included: a hello after a gap is the cue to refetch what was missed. */
  onPush(push: Push): void;
  onState(state: ConnectionState): void;
  /** The server closed the channel because the session ended: sign in again, don't retry. */
  onSessionEnded(): void;
}

/** The close code the server ends a channel with when its session ended (realtime/hub.ts). */
export const SESSION_ENDED_CLOSE = 4401;

/** An open channel; `close` stops it for good (sign-out, mode switch). */
export interface RealtimeHandle {
  close(): void;
  /** Sends a notice to the server if the channel is open (typing presence); else drops it. */
  send(notice: object): void;
}

const FIRST_RETRY_MS = 500;
/** The server's heartbeat interval when its hello does not say (realtime/hub.ts). */
const DEFAULT_HEARTBEAT_MS = 25_000;

/** How long a silent channel counts as live: two missed heartbeats and some slack. */
export function silenceLimit(heartbeatMs: number): number {
  return heartbeatMs * 2 + 2_000;
}
const MAX_RETRY_MS = 30_000;

/** The wait before attempt `n` (0-based): doubling from 500 ms up to 30 s, with jitter so a restarted server is not hit by every client at once. */
export function backoffDelay(attempt: number, random = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Opens the account's realtime channel for one mode and keeps it open: on a drop it retries
 * with exponential backoff, at once when the browser comes back online, and the server's
 * `hello` on every (re)connection tells the app to catch up.
 */
export function openRealtime(mode: Mode, handlers: RealtimeHandlers): RealtimeHandle {
  let socket: WebSocket | null = null;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let heartbeatMs = DEFAULT_HEARTBEAT_MS;
  let watchdog: ReturnType<typeof setTimeout> | null = null;

  // A channel can die without a close (a laptop asleep, a proxy dropping it): heard nothing for
  // two heartbeats, it is treated as gone, so the indicator never says live when it is not.
  const stopWatchdog = () => {
    if (watchdog !== null) clearTimeout(watchdog);
    watchdog = null;
  };
  const watch = (ws: WebSocket) => {
    stopWatchdog();
    watchdog = setTimeout(() => drop(ws), silenceLimit(heartbeatMs));
  };
  const drop = (ws: WebSocket) => {
    stopWatchdog();
    if (socket !== ws) return;
    socket = null;
    ws.onclose = null;
    ws.close();
    schedule();
  };

  const url = () => {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${window.location.host}/app/ws?mode=${mode}`;
  };

  const schedule = () => {
    if (closed || timer !== null) return;
    if (!navigator.onLine) {
      // Nothing to try until the browser is back online (the `online` event retries).
      handlers.onState('no-network');
      return;
    }
    handlers.onState('offline');
    timer = setTimeout(connect, backoffDelay(attempt));
    attempt += 1;
  };

  function connect() {
    timer = null;
    if (closed) return;
    handlers.onState('connecting');
    const ws = new WebSocket(url());
    socket = ws;
    ws.onmessage = (event) => {
      let push: Push;
      try {
        push = JSON.parse(String(event.data)) as Push;
      } catch {
        return;
      }
      if (push.type === 'hello') {
        attempt = 0;
        if (push.heartbeatMs) heartbeatMs = push.heartbeatMs;
        handlers.onState('live');
      }
      watch(ws);
      if (push.type === 'heartbeat') return;
      handlers.onPush(push);
    };
    ws.onclose = (event) => {
      stopWatchdog();
      if (socket === ws) socket = null;
      if (event.code === SESSION_ENDED_CLOSE) {
        closed = true;
        window.removeEventListener('online', retryNow);
        window.removeEventListener('offline', goneOffline);
        handlers.onSessionEnded();
        return;
      }
      schedule();
    };
    // An error is always followed by close, which does the retrying.
    ws.onerror = () => undefined;
  }

  const retryNow = () => {
    if (closed || socket !== null) return;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    connect();
  };
  // The browser knows first when the network goes: say so at once, not after a timeout.
  const goneOffline = () => {
    if (closed) return;
    const ws = socket;
    if (ws) drop(ws);
    else schedule();
  };
  window.addEventListener('online', retryNow);
  window.addEventListener('offline', goneOffline);
  if (navigator.onLine) connect();
  else handlers.onState('no-network');

  return {
    send(notice) {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(notice));
    },
    close() {
      closed = true;
      window.removeEventListener('online', retryNow);
      window.removeEventListener('offline', goneOffline);
      stopWatchdog();
      if (timer !== null) clearTimeout(timer);
      socket?.close(1000, 'closed by the app');
      socket = null;
    },
  };
}
