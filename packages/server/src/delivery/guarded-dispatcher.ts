// The connection side of the SSRF defence (ssrf-guard.ts): an undici dispatcher that
// connects only to addresses it has checked. Apart from the rules so that the store thread,
// which checks URLs but never delivers, does not load undici.
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Agent, buildConnector } from 'undici';
import { buildConnector as connectorOf, newAgent } from './undici-parts.ts';
import {
  classifyAddress,
  firstBlocked,
  isAddressAllowed,
  SsrfBlockedError,
  systemResolver,
  type Resolver,
} from './ssrf-guard.ts';

/** Options of {@link createGuardedDispatcher}. */
export interface GuardedDispatcherOptions {
  allowPrivate: boolean;
  /** Time for name resolution, TCP and TLS together; default 10 s. */
  connectTimeoutMs?: number;
  resolve?: Resolver;
  /** Extra trusted certificate authorities, for private networks and tests. */
  ca?: ConnectionOptions['ca'];
  /** Pool settings (connections, keep-alive, header and body timeouts). */
  agent?: Omit<Agent.Options, 'connect' | 'connectTimeout' | 'socketPath'>;
}

/**
 * An undici Agent for webhook deliveries that resolves each host once, refuses
 * the connection with an {@link SsrfBlockedError} unless every address is
 * allowed, and connects only to the addresses it checked. TLS still verifies
 * the certificate against the URL's host name.
 */
export function createGuardedDispatcher({
  allowPrivate,
  connectTimeoutMs = 10_000,
  resolve = systemResolver,
  ca,
  agent,
}: GuardedDispatcherOptions): Agent {
  // net.connect and tls.connect call this instead of dns.lookup and then connect to
  // exactly what it returned, so no second resolution happens after the check.
  // undici's connect timeout is already running, so a slow resolver is bounded too.
  const lookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    void resolve(hostname)
      .then((all) => {
        const addresses = family ? all.filter((a) => a.family === family) : [...all];
        const first = addresses[0];
        if (!first) {
          throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        }
        const blocked = firstBlocked(hostname, addresses, allowPrivate);
        if (blocked) throw blocked;
        return { addresses, first };
      })
      // A separate stage, so an exception thrown by the callback is never reported through it again.
      .then(
        ({ addresses, first }) => {
          if (options.all) callback(null, addresses);
          else callback(null, first.address, first.family);
        },
        (err: Error) => callback(err, ''),
      );
  };
  const connector = connectorOf({ timeout: connectTimeoutMs, lookup, ...(ca ? { ca } : {}) });
  const connect: buildConnector.connector = (options, callback) => {
    // Node skips `lookup` when the host is already an IP address, so literals are checked here.
    if (isIP(options.hostname) !== 0) {
      const kind = classifyAddress(options.hostname);
      if (!isAddressAllowed(kind, allowPrivate)) {
        callback(new SsrfBlockedError(options.hostname, options.hostname, kind), null);
        return;
      }
    }
    connector(options, callback);
  };
  return newAgent({ ...agent, connect });
}

/**
 * The dispatcher webhook deliveries use, with the production pool: keep-alive for
 * 30 s and up to 16 connections per endpoint origin. `timeoutMs` bounds connecting.
 */
export function webhookDispatcher(options: {
  allowPrivate: boolean;
  timeoutMs?: number | undefined;
  ca?: ConnectionOptions['ca'] | undefined;
}): Agent {
  return createGuardedDispatcher({
    allowPrivate: options.allowPrivate,
    connectTimeoutMs: options.timeoutMs ?? 15_000,
    ...(options.ca ? { ca: options.ca } : {}),
    agent: { keepAliveTimeout: 30_000, connections: 16 },
  });
}
