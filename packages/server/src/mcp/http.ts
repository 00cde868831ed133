import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Actor } from '../commands/context.ts';
import { createToolServer, type ToolServerDeps } from './tools.ts';

/**
 * Answers one Streamable HTTP request in stateless mode: a fresh server and
 * transport for the caller's account and mode, gone when the response closes,
 * so any instance can answer any request. `body` is the already-parsed JSON.
 */
export async function handleHttpRequest(
  actor: Actor,
  deps: ToolServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = createToolServer(actor, deps);
  // JSON answers rather than an event stream: every tool answers once, with no progress to stream.
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
