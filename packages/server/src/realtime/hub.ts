import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { isMode, type Mode } from '../domain/modes.ts';
import { sessionFromToken, SESSION_COOKIE } from '../app-api/session-auth.ts';
import { SESSION_ENDED } from '../commands/end-session.ts';
import { TYPING_SIGNAL, type TypingAnnouncement } from '../commands/announce-typing.ts';
import { typingNoticeFrom, TYPING_INTERVAL_MS } from './typing.ts';

/** Signals pushed to every signed-in client of the account and mode they concern. */
export const PUSHED_SIGNALS = [
  'message.created',
  'message.updated',
  'call.created',
  'contact.changed',
  'conversation.read',
  'conversation.unread',
  'conversation.updated',
  'note.created',
  'opt-out.changed',
  'contact.deleted',
] as const;

interface Client {
  socket: WebSocket;
  accountId: string;
  mode: Mode;
  alive: boolean;
  /** The session cookie it opened with, checked again at every heartbeat. */
  token: string;
  tokenHash: string;
  user: { id: string; name: string };
  lastTypingAt: number;
}

/** The path browsers open the socket on. */
export const REALTIME_PATH = '/app/ws';
const HEARTBEAT_MS = 25_000;
const HEARTBEAT_TEXT = JSON.stringify({ type: 'heartbeat' });

/**
 * The close code of a channel whose session ended (signed out, expired, its user
 * removed): the app returns to its sign-in page instead of reconnecting. In the range
 * RFC 6455 leaves to applications.
 */
export const SESSION_ENDED_CLOSE = 4401;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The realtime channel of the softphone: a WebSocket per signed-in browser,
 * authenticated by the session cookie, over which every committed change of
 * its account and mode is pushed as `{type, …}` JSON. A client that
 * reconnects refetches its lists, so it catches up on what it missed.
 */
export function attachRealtime(
  app: FastifyInstance,
  { heartbeatMs = HEARTBEAT_MS }: { heartbeatMs?: number } = {},
): { clientCount(): number } {
  const { store, clock, logger, changes } = app.deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const clients = new Set<Client>();

  let closing = false;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (closing) return refuse(socket, 503, 'Service Unavailable');
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== REALTIME_PATH) return refuse(socket, 404, 'Not Found');
    const origin = request.headers.origin;
    if (
      origin !== undefined &&
      URL.canParse(origin) &&
      new URL(origin).host !== request.headers.host
    ) {
      return refuse(socket, 403, 'Forbidden');
    }
    const mode = url.searchParams.get('mode') ?? 'test';
    if (!isMode(mode)) return refuse(socket, 400, 'Bad Request');
    const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
    sessionFromToken(store.db, token, clock.now()).then(
      (session) => {
        if (!session || token === undefined) return refuse(socket, 401, 'Unauthorized');
        wss.handleUpgrade(request, socket, head, (ws) => {
          const client: Client = {
            socket: ws,
            accountId: session.accountId,
            mode,
            alive: true,
            token,
            tokenHash: session.tokenHash,
            user: { id: session.user.id, name: session.user.name },
            lastTypingAt: 0,
          };
          addClient(client);
          ws.on('pong', () => (client.alive = true));
          ws.on('message', (data) => relayTyping(client, data));
          ws.on('close', () => removeClient(client));
          ws.on('error', () => removeClient(client));
          ws.send(JSON.stringify({ type: 'hello', mode, heartbeatMs }));
        });
      },
      (error: unknown) => {
        logger.error({ err: error }, 'realtime upgrade failed');
        refuse(socket, 500, 'Internal Server Error');
      },
    );
  };
  app.server.on('upgrade', onUpgrade);

  const listeners = PUSHED_SIGNALS.map((type) => {
    const listener = (payload: { accountId: string; mode: Mode }) => {
      const { accountId, mode } = payload;
      // Written once, and only when someone of that account and mode is connected.
      let text: string | undefined;
      for (const client of clients) {
        if (client.accountId !== accountId || client.mode !== mode) continue;
        if (text === undefined) {
          const { accountId: _account, mode: _mode, ...rest } = payload;
          text = JSON.stringify({ type, ...rest });
        }
        client.socket.send(text);
      }
    };
    return [type, listener] as const;
  });
  /**
   * Tells the user's teammates in the same account and mode that they are typing, on
   * every instance: where instances share the database, the notice goes out as a signal of
   * an empty commit, which the store relays to the others; otherwise there are none.
   */
  const relayTyping = (from: Client, data: unknown) => {
    const notice = typingNoticeFrom(data);
    const now = Date.now();
    if (!notice || now - from.lastTypingAt < TYPING_INTERVAL_MS) return;
    from.lastTypingAt = now;
    const announcement: TypingAnnouncement = {
      accountId: from.accountId,
      mode: from.mode,
      conversationId: notice.conversationId,
      user: from.user,
    };
    if (!store.capabilities.sharedByInstances) {
      store.signals.emit(TYPING_SIGNAL, announcement);
      return;
    }
    changes
      .run('announceTyping', announcement)
      .catch((error: unknown) => logger.warn({ err: error }, 'typing notice not passed on'));
  };
  const onTyping = ({ accountId, mode, conversationId, user }: TypingAnnouncement) => {
    const text = JSON.stringify({ type: 'typing', conversationId, user });
    for (const client of clients) {
      if (client.accountId !== accountId || client.mode !== mode) continue;
      if (client.user.id !== user.id) client.socket.send(text);
    }
  };
  /** Closes a channel whose session is over; the app signs in again rather than retrying. */
  const endClient = (client: Client) => {
    client.socket.close(SESSION_ENDED_CLOSE, 'session ended');
    removeClient(client);
  };
  const onSessionEnded = ({ tokenHash }: { tokenHash: string }) => {
    for (const client of clients) if (client.tokenHash === tokenHash) endClient(client);
  };
  // Listening only while someone is connected: where changes are made on the store
  // thread, each signal listened to here is sent across, for nobody.
  const listen = (on: boolean) => {
    for (const [type, listener] of listeners) {
      if (on) store.signals.on(type, listener);
      else store.signals.off(type, listener);
    }
    if (on) store.signals.on(SESSION_ENDED, onSessionEnded);
    else store.signals.off(SESSION_ENDED, onSessionEnded);
    if (on) store.signals.on(TYPING_SIGNAL, onTyping);
    else store.signals.off(TYPING_SIGNAL, onTyping);
  };
  function addClient(client: Client): void {
    clients.add(client);
    if (clients.size === 1) listen(true);
  }
  function removeClient(client: Client): void {
    if (clients.delete(client) && clients.size === 0) listen(false);
  }

  // Pings find connections that died without a close (a phone losing its network), and
  // each session is looked up again: one that expired, or ended where no signal reached
  // this process, closes its channels here.
  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        client.socket.terminate();
        removeClient(client);
        continue;
      }
      client.alive = false;
      client.socket.ping();
      // Browsers cannot see pings: this lets the app tell a live channel from a silent one.
      client.socket.send(HEARTBEAT_TEXT);
      sessionFromToken(store.db, client.token, clock.now()).then(
        (session) => {
          if (!session && clients.has(client)) endClient(client);
        },
        (error: unknown) => logger.warn({ err: error }, 'realtime session check failed'),
      );
    }
  }, heartbeatMs);
  heartbeat.unref();

  // At the start of a shutdown, not its end: an open channel would otherwise hold the
  // server open, and the app would show "live" while nothing can reach it. 1001 tells the
  // app to reconnect (to another instance, or this one once it is back).
  app.addHook('preClose', async () => {
    closing = true;
    clearInterval(heartbeat);
    if (clients.size > 0) listen(false);
    for (const client of clients) {
      client.socket.close(1001, 'server shutting down');
      // A peer that does not answer the close handshake is not waited for.
      setTimeout(() => client.socket.terminate(), 1_000).unref();
    }
    clients.clear();
  });
  app.addHook('onClose', async () => {
    app.server.off('upgrade', onUpgrade);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { clientCount: () => clients.size };
}
