import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../plugins/auth.ts';

/** JSON-RPC's "internal error" code, for failures outside any tool. */
const JSONRPC_INTERNAL_ERROR = -32603;

/**
 * Stateless: no session survives a request, so GET (a server-to-client event
 * stream) and DELETE (ending a session) have nothing to offer. The transport
 * specification has servers answer 405 then, which clients expect.
 */
function methodNotAllowed(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .header('allow', 'POST')
    .send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this server is stateless; use POST.' },
      id: null,
    });
}

/**
 * `/v1/mcp`: the tool server for AI agents over Streamable HTTP. Authentication,
 * rate limiting and the JSON content-type rule are the API's own hooks, so a
 * missing or revoked key is the usual `401` with the API's error body.
 */
export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes, clock, secrets } = app.deps;

  app.post(
    '/mcp',
    // One request is one protocol message, not a replayable write; send_text takes its own key.
    { config: { ignoreIdempotencyKey: true } },
    async (request, reply) => {
      // The MCP SDK and zod take about 250 ms to load, and every CLI command imports
      // the app; they load with the first MCP request instead.
      const { handleHttpRequest } = await import('../../mcp/http.ts');
      // The transport writes the response itself; Fastify's onSend hooks will not run.
      reply.hijack();
      reply.raw.setHeader('request-id', request.id);
      try {
        await handleHttpRequest(
          principalOf(request),
          {
            store,
            changes,
            clock,
            secrets,
            reportError: (error) => request.log.error({ err: error }, 'mcp tool failed'),
          },
          request.raw,
          reply.raw,
          request.body,
        );
      } catch (error) {
        request.log.error({ err: error }, 'mcp request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: JSONRPC_INTERNAL_ERROR, message: 'Internal error.' },
              id: null,
            }),
          );
        } else if (!reply.raw.writableEnded) {
          reply.raw.destroy();
        }
      }
    },
  );

  app.get('/mcp', methodNotAllowed);
  app.delete('/mcp', methodNotAllowed);
}
