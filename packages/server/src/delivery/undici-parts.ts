// The parts of undici a webhook delivery uses, each loaded from its own file when first used.
//
// undici's entry point loads all of undici: fetch, WebSocket, EventSource, the caches,
// the mock agents, the proxy agents (109 files). On the HTTP thread of `serve`, which
// makes every delivery, loading it added 13 MB to the resident set, mostly for code it
// never runs; the files below and what they load add 3 MB. The store thread, which
// settles attempts with post-webhook.ts but never makes one, loads none of them.
// undici's package has no `exports` map, so its files are its public layout; the types
// are the entry point's own, and the tests that deliver webhooks fail if a file moves
// in a new version.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

/** `new undici.Agent(options)`: the connection-pooling dispatcher. */
export function newAgent(options: Undici.Agent.Options): Undici.Agent {
  const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
  return new Agent(options);
}

/** `undici.buildConnector(options)`: TCP and TLS connections as the Agent makes them. */
export function buildConnector(
  options: Undici.buildConnector.BuildOptions,
): Undici.buildConnector.connector {
  const build = require('undici/lib/core/connect.js') as typeof Undici.buildConnector;
  return build(options);
}
