import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  findRecordedResponse,
  idempotentRequest,
  type RecordedResponse,
} from '../../commands/idempotency.ts';
import type { CommandInput, CommandName } from '../../commands/registry.ts';
import { confirmKey, principalOf } from './auth.ts';

/** The header's name, which is also the `param` of its errors. */
const HEADER = 'Idempotency-Key';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Routes whose requests are not replayable as a whole ignore the header: one
     * MCP request is one protocol message, and its tools take a key per call.
     */
    ignoreIdempotencyKey?: boolean;
  }
}

function replay(reply: FastifyReply, recorded: RecordedResponse): FastifyReply {
  return reply
    .code(recorded.statusCode)
    .header('idempotent-replayed', 'true')
    .type('application/json')
    .send(recorded.body);
}

/**
 * `Idempotency-Key` on every POST: a repeat with the same body within 24 hours
 * replays the first response and creates nothing; another body is `409`.
 * Runs after validation, so only requests that would run reach it.
 */
export function registerIdempotency(app: FastifyInstance): void {
  const { store, clock } = app.deps;
  app.decorateRequest('idempotency', null);
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || !request.principal) return;
    if (request.routeOptions.config.ignoreIdempotencyKey) return;
    const idempotency = idempotentRequest(
      key,
      HEADER,
      request.method,
      request.url,
      request.body ?? null,
    );
    const recorded = await findRecordedResponse(store.db, request.principal, idempotency, HEADER, {
      clock,
    });
    if (recorded) {
      // Nothing but a read answers a replay: the key must be confirmed here.
      await confirmKey(request);
      return replay(reply, recorded);
    }
    request.idempotency = idempotency;
  });
}

/**
 * Runs a command and answers with its result. When the request carries an
 * Idempotency-Key, the response is stored in the same transaction as the work,
 * so a crash can never leave the work done without its replayable answer.
 */
export async function commitAndReply<K extends CommandName>(
  request: FastifyRequest,
  reply: FastifyReply,
  statusCode: number,
  name: K,
  input: CommandInput<K>,
): Promise<FastifyReply> {
  const principal = principalOf(request);
  const outcome = await request.server.deps.changes.runIdempotently(
    name,
    input,
    { actor: principal, request: request.idempotency, param: HEADER, statusCode },
    { apiKey: principal.keyHash },
  );
  // Two requests with one key raced; the loser replays the winner's answer.
  if (outcome.replayed) return replay(reply, outcome);
  return reply.code(statusCode).send(outcome.body);
}
