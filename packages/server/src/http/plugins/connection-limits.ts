import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../../config.ts';
import { clientAddress } from '../client-address.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** The shortest time a connection may go without any traffic while a request is handled. */
const IDLE_FLOOR_MS = 120_000;

/**
 * Refuses a connection at once when its address already holds `max` open ones.
 * A realtime WebSocket keeps its connection, so it counts until it closes.
 */
function capPerAddress(server: Server, max: number, open: Map<string, number>): void {
  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket.remoteAddress);
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * The node:http server Fastify runs on (its `serverFactory`), holding every
 * connection to the bounds of README's configuration table: headers, whole request
 * and keep-alive idle timeouts, and a cap on connections per client address. A
 * request that times out is answered 408 (http/plugins/errors.ts) and closed. A
 * WebSocket leaves these timeouts when it upgrades (node stops tracking the request;
 * `ws` clears the socket's idle timeout).
 *
 * One factory per app: Fastify may call it once per address of a host name, and
 * those servers share one count per client address.
 */
export function boundedServerFactory(config: Config): (handler: Handler) => Server {
  const open = new Map<string, number>();
  return (handler) => {
    const server = createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        keepAliveTimeout: config.keepAliveTimeoutMs,
        // node looks for expired requests on this interval (30 s unless told): a tenth of
        // the headers timeout, at most a second, lets no request overstay by much.
        connectionsCheckingInterval: Math.min(
          1000,
          Math.max(10, Math.floor(config.headersTimeoutMs / 10)),
        ),
      },
      handler,
    );
    // Nothing moving either way while a request is handled or answered (a client that
    // stopped reading its answer, which the timeouts above do not see): closed after
    // twice the request timeout, so that its 408 comes first, and never before 2
    // minutes, far beyond any handler's time even on a loaded machine.
    server.setTimeout(Math.max(config.requestTimeoutMs * 2, IDLE_FLOOR_MS));
    if (config.maxConnectionsPerAddress > 0) {
      capPerAddress(server, config.maxConnectionsPerAddress, open);
    }
    return server;
  };
}
