import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../../lib/secrets.ts';
import { ApiError, validationError } from '../../domain/errors.ts';
import { isUniqueViolation } from '../../store/capabilities.ts';
import {
  deleteExpiredIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  type IdempotencyKeyRow,
} from '../../store/repos/idempotency-keys.ts';
import type { WriteTx } from '../../store/write-queue.ts';
import { principalOf } from './auth.ts';

/** How long a key replays its first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** JSON with sorted keys, so the same body in another key order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function replay(reply: FastifyReply, row: IdempotencyKeyRow, requestHash: string): FastifyReply {
  if (row.request_hash !== requestHash) {
    throw new ApiError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with a different request.',
      { param: 'Idempotency-Key' },
    );
  }
  return reply
    .code(row.status_code)
    .header('idempotent-replayed', 'true')
    .type('application/json')
    .send(row.response_body);
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
    if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
      throw validationError(
        'Idempotency-Key',
        'Idempotency-Key must be 1–255 visible ASCII characters.',
      );
    }
    const requestHash = sha256Hex(
      `${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`,
    );
    const { accountId, mode } = request.principal;
    const existing = await findIdempotencyKey(
      store.db,
      accountId,
      mode,
      key,
      clock.now() - IDEMPOTENCY_WINDOW_MS,
    );
    if (existing) return replay(reply, existing, requestHash);
    request.idempotency = { key, requestHash };
  });
}

/**
 * Runs a unit of work and answers with its result. When the request carries an
 * Idempotency-Key, the response is stored in the same transaction as the work,
 * so a crash can never leave the work done without its replayable answer.
 */
export async function commitAndReply(
  request: FastifyRequest,
  reply: FastifyReply,
  statusCode: number,
  unit: (tx: WriteTx) => Promise<object>,
): Promise<FastifyReply> {
  const { store, clock } = request.server.deps;
  const idempotency = request.idempotency;
  const principal = principalOf(request);
  try {
    const body = await store.write(async (tx) => {
      const result = await unit(tx);
      if (idempotency) {
        const now = clock.now();
        await deleteExpiredIdempotencyKey(
          tx.db,
          principal.accountId,
          principal.mode,
          idempotency.key,
          now - IDEMPOTENCY_WINDOW_MS,
        );
        await insertIdempotencyKey(tx.db, {
          account_id: principal.accountId,
          mode: principal.mode,
          key: idempotency.key,
          request_hash: idempotency.requestHash,
          status_code: statusCode,
          response_body: JSON.stringify(result),
          created_at: now,
        });
      }
      return result;
    });
    return reply.code(statusCode).send(body);
  } catch (error) {
    // Two requests with one key raced; the loser replays the winner's answer.
    if (idempotency && isUniqueViolation(error)) {
      const winner = await findIdempotencyKey(
        store.db,
        principal.accountId,
        principal.mode,
        idempotency.key,
        clock.now() - IDEMPOTENCY_WINDOW_MS,
      );
      if (winner) return replay(reply, winner, idempotency.requestHash);
    }
    throw error;
  }
}
