import { sha256Hex } from '../lib/secrets.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { isUniqueViolation } from '../store/engine/capabilities.ts';
import {
  deleteExpiredIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
} from '../store/repos/idempotency-keys.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { Actor, CommandDeps, WebhookDeps } from './context.ts';
import { scoped } from '../store/scope.ts';

// One implementation of the idempotency rule (docs/behaviour.md#idempotency) for every
// transport: the REST `Idempotency-Key` header and the MCP tools' `idempotencyKey`
// argument record and replay through the same table, so one key means one request
// whichever way it arrived.

/** How long a key replays its first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** A write made under an idempotency key: the key and the hash of what was asked. */
export interface IdempotentRequest {
  key: string;
  requestHash: string;
}

/** The first response recorded under a key, replayed as it was. */
export interface RecordedResponse {
  statusCode: number;
  /** The response body as JSON text. */
  body: string;
}

/**
 * What seals a recorded answer at rest and opens it for a replay: the secret box
 * that seals webhook secrets (lib/secret-box.ts).
 */
export type RecordSealing = Pick<WebhookDeps, 'seal' | 'open'>;

/**
 * Whether a record's text is sealed: the secret box's text (`v1:…`), which no JSON
 * text begins like. An answer recorded in clear (one with no secret) is JSON.
 */
function isSealed(text: string): boolean {
  return !text.startsWith('{') && !text.startsWith('[');
}

/** What an idempotent write answered: its own fresh result, or the recorded one of an earlier request. */
export type IdempotentOutcome<T> =
  { replayed: false; statusCode: number; body: T } | ({ replayed: true } & RecordedResponse);

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

/**
 * Checks a key's format and fingerprints the request it came with (`POST /v1/messages`
 * and its JSON body). `param` is the name the caller knows the key by, for the 422.
 */
export function idempotentRequest(
  key: unknown,
  param: string,
  method: string,
  path: string,
  body: unknown,
): IdempotentRequest {
  if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
    throw validationError(param, `${param} must be 1–255 visible ASCII characters.`);
  }
  return { key, requestHash: sha256Hex(`${method} ${path}\n${canonicalJson(body ?? null)}`) };
}

/**
 * The response recorded under the request's key within the window, or null when
 * the key is fresh. The same key with another request is `409 idempotency_conflict`.
 */
export async function findRecordedResponse(
  db: Kysely<DB>,
  actor: Actor,
  request: IdempotentRequest,
  param: string,
  deps: CommandDeps & Pick<RecordSealing, 'open'>,
): Promise<RecordedResponse | null> {
  const row = await findIdempotencyKey(
    scoped(db, actor),
    request.key,
    deps.clock.now() - IDEMPOTENCY_WINDOW_MS,
  );
  if (!row) return null;
  if (row.request_hash !== request.requestHash) {
    throw new ApiError(
      'idempotency_conflict',
      `This ${param} was already used with a different request.`,
      { param },
    );
  }
  const body = row.response_body;
  return { statusCode: row.status_code, body: isSealed(body) ? deps.open(body) : body };
}

/**
 * Runs a unit of work through the store's write path. Under a key, its response
 * is recorded in the same transaction as the work, so a crash can never leave the
 * work done without its replayable answer; a concurrent request with the same key
 * that lost the race gets the winner's answer instead of doing the work twice.
 *
 * The record of an answer that carries a secret (`sealed`: a new endpoint's or
 * rotation's `whsec_`) is sealed, as the endpoint's own copy of the secret is, and
 * opened on replay, which returns it as it was (Stripe's replays do too). Only
 * those: sealing costs a cipher's set-up and a nonce per record (~24 µs of CPU
 * measured, more than half of a send's store-thread time, docs/architecture.md),
 * and a send under a key, a hot path, answers nothing the messages table does
 * not hold in clear anyway.
 */
export async function writeIdempotently<T extends object>(
  store: Store,
  actor: Actor,
  request: IdempotentRequest | null,
  param: string,
  statusCode: number,
  unit: (tx: WriteTx) => Promise<T>,
  deps: CommandDeps & RecordSealing,
  sealed: boolean,
): Promise<IdempotentOutcome<T>> {
  try {
    const body = await store.write(async (tx) => {
      // The answer's record is written after the command: it has not sent all until then.
      const result = await unit(request ? { ...tx, sentAll: () => {} } : tx);
      if (request) {
        const now = deps.clock.now();
        await deleteExpiredIdempotencyKey(
          scoped(tx.db, actor),
          request.key,
          now - IDEMPOTENCY_WINDOW_MS,
        );
        await insertIdempotencyKey(tx.db, {
          account_id: actor.accountId,
          mode: actor.mode,
          key: request.key,
          request_hash: request.requestHash,
          status_code: statusCode,
          response_body: sealed ? deps.seal(JSON.stringify(result)) : JSON.stringify(result),
          created_at: now,
        });
      }
      return result;
    });
    return { replayed: false, statusCode, body };
  } catch (error) {
    if (request && isUniqueViolation(error)) {
      const winner = await findRecordedResponse(store.db, actor, request, param, deps);
      if (winner) return { replayed: true, ...winner };
    }
    throw error;
  }
}
