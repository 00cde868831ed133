import { once } from 'node:events';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Actor } from '../commands/context.ts';
import { createToolServer, type ToolServerDeps } from './tools.ts';

/**
 * Serves the tools over this process's stdin and stdout until the client closes
 * stdin. stdout then carries protocol messages only: anything else written there
 * would corrupt the stream, so diagnostics belong on stderr.
 */
export async function serveStdio(actor: Actor, deps: ToolServerDeps): Promise<void> {
  const server = createToolServer(actor, deps);
  const ended = Promise.race([once(process.stdin, 'end'), once(process.stdin, 'close')]);
  await server.connect(new StdioServerTransport());
  await ended;
  await server.close();
}
