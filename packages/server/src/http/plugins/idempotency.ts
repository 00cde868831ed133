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
  const { store, clock, secrets } = app.deps;
  // Opens a recorded answer that was sealed because it carries a secret (see writeIdempotently).
  const open = (sealed: string) => secrets.open(sealed);
  app.decorateRequest('idempotency', null);
  /** Replays the recorded answer (true), or readies the request to record its own. */
  const lookUp = async (request: FastifyRequest, reply: FastifyReply, key: unknown) => {
    const idempotency = idempotentRequest(
      key,
      HEADER,
      request.method,
      request.url,
      request.body ?? null,
    );
    const recorded = await findRecordedResponse(store.db, request.principal!, idempotency, HEADER, {
      clock,
      open,
    });
    if (recorded) {
      // Nothing but a read answers a replay: the key must be confirmed here.
      await confirmKey(request);
      replay(reply, recorded);
      return true;
    }
    request.idempotency = idempotency;
    return false;
  };
  // A callback, not a promise, for the requests without a key: nearly all of them.
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done) => {
    const key = request.headers['idempotency-key'];
    if (
      request.method !== 'POST' ||
      key === undefined ||
      !request.principal ||
      request.routeOptions.config.ignoreIdempotencyKey
    ) {
      done();
      return;
    }
    // A replay has answered: the route must not run (and `done` must not be called).
    lookUp(request, reply, key).then((replayed) => replayed || done(), done);
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
