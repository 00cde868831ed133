import type { Kysely } from 'kysely';
import { sha256Hex } from '../lib/secrets.ts';
import { ApiError } from '../domain/errors.ts';
import { parseKeyMode } from '../domain/api-keys.ts';
import type { Mode } from '../domain/modes.ts';
import { findApiKeyByHash } from '../store/repos/api-keys.ts';
import type { DB } from '../store/schema.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/** The caller behind a valid API key. */
export interface ApiKeyPrincipal {
  keyId: string;
  /** The SHA-256 of the secret: how the key is looked up again (`confirmApiKey`). */
  keyHash: string;
  accountId: string;
  mode: Mode;
}

const UNAUTHORIZED = 'Provide a valid API key as `Authorization: Bearer sk_test_…`.';

/** The bearer token of an `Authorization` header, or null when there is none. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * Resolves an `Authorization` header to its account and mode. Missing,
 * malformed, unknown and revoked keys are all the same `401 unauthorized`,
 * so the answer reveals nothing about which keys exist.
 */
export async function authenticateApiKey(
  db: Kysely<DB>,
  authorization: string | undefined,
  /** The secret's SHA-256 when the caller has computed it already. */
  knownHash?: string,
): Promise<ApiKeyPrincipal> {
  const secret = bearerToken(authorization);
  const mode = secret ? parseKeyMode(secret) : null;
  if (!secret || !mode) throw new ApiError('unauthorized', UNAUTHORIZED);
  const keyHash = knownHash ?? sha256Hex(secret);
  const key = await findApiKeyByHash(db, keyHash);
  if (!key || key.revoked_at !== null || key.mode !== mode) {
    throw new ApiError('unauthorized', UNAUTHORIZED);
  }
  return { keyId: key.id, keyHash, accountId: key.account_id, mode: key.mode };
}

/** The `tx.shared` fact that a key was found valid in this transaction. */
export function validKeyFact(keyHash: string): string {
  return `api-key-valid:${keyHash}`;
}

/**
 * Rejects with `401 unauthorized` unless the key of `keyHash` still exists unrevoked.
 * Inside a write transaction it is exact: no revocation can commit between this
 * check and the change it guards. A change checks here (see `Changes`), so a
 * request that changes something needs no other lookup of its key; the units of
 * one batch look a key up once (`tx.shared`, dropped by a revocation in it). The
 * lookup is sent at once: a caller may send the change's statements behind it
 * before the answer comes (`runConfirmed`).
 */
export function confirmApiKey(tx: WriteTx, keyHash: string): Promise<void> {
  const fact = validKeyFact(keyHash);
  let check = tx.shared.get(fact) as Promise<void> | undefined;
  if (!check) {
    check = findApiKeyByHash(tx.db, keyHash).then(
      (key) => {
        if (!key || key.revoked_at !== null) throw new ApiError('unauthorized', UNAUTHORIZED);
      },
      (error: unknown) => {
        // A lookup that failed says nothing of the key: the next unit looks again.
        if (tx.shared.get(fact) === check) tx.shared.delete(fact);
        throw error;
      },
    );
    tx.shared.set(fact, check);
  }
  return check;
}
