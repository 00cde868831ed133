import type { Kysely } from 'kysely';
import { newId } from '../../src/lib/ids.ts';
import type { Store } from '../../src/store/store.ts';
import type { DB, WebhookDeliveriesTable } from '../../src/store/schema.ts';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** An event written as the outbox would have at `at`, and what became of its deliveries. */
export interface OldEvent {
  eventId: string;
  deliveryIds: string[];
  attemptIds: string[];
}

/**
 * Writes a `contact.created` event made at `at` for `accountId` (test mode) with one
 * delivery per entry of `deliveries`, to that endpoint and in that status, each with
 * an attempt at `at` and another an hour later.
 */
export async function writeEvent(
  store: Store,
  accountId: string,
  at: number,
  deliveries: { endpointId: string; status: WebhookDeliveriesTable['status'] }[],
): Promise<OldEvent> {
  const eventId = newId('evt', at);
  const written: OldEvent = { eventId, deliveryIds: [], attemptIds: [] };
  await store.write(async (tx) => {
    await tx.db
      .insertInto('events')
      .values({
        id: eventId,
        account_id: accountId,
        mode: 'test',
        type: 'contact.created',
        data: '{}',
        created_at: at,
        endpoint_id: null,
      })
      .execute();
    for (const { endpointId, status } of deliveries) {
      const deliveryId = newId('whd', at);
      written.deliveryIds.push(deliveryId);
      await tx.db
        .insertInto('webhook_deliveries')
        .values({
          id: deliveryId,
          event_id: eventId,
          endpoint_id: endpointId,
          status,
          attempts: 2,
          next_attempt_at: status === 'pending' ? at + 3 * HOUR_MS : at + HOUR_MS,
          locked_until: 0,
          last_status_code: status === 'succeeded' ? 200 : 500,
          last_error: null,
          created_at: at,
          updated_at: at + HOUR_MS,
        })
        .execute();
      for (const attemptAt of [at, at + HOUR_MS]) {
        const attemptId = newId('wha', attemptAt);
        written.attemptIds.push(attemptId);
        await tx.db
          .insertInto('webhook_attempts')
          .values({
            id: attemptId,
            delivery_id: deliveryId,
            endpoint_id: endpointId,
            attempted_at: attemptAt,
            status_code: 500,
            error: null,
            duration_ms: 3,
            response_excerpt: 'no',
          })
          .execute();
      }
    }
  });
  return written;
}

/** Writes an idempotency record of `key` made at `at`. */
export async function writeIdempotencyKey(
  store: Store,
  accountId: string,
  key: string,
  at: number,
): Promise<void> {
  await store.write(async (tx) => {
    await tx.db
      .insertInto('idempotency_keys')
      .values({
        account_id: accountId,
        mode: 'test',
        key,
        request_hash: 'hash',
        status_code: 201,
        response_body: '{"id":"ct_old"}',
        created_at: at,
      })
      .execute();
  });
}

/** Writes a softphone session that expires at `expiresAt`. */
export async function writeSession(
  store: Store,
  accountId: string,
  tokenHash: string,
  expiresAt: number,
): Promise<void> {
  await store.write(async (tx) => {
    await tx.db
      .insertInto('sessions')
      .values({
        token_hash: tokenHash,
        user_id: 'usr_retention',
        account_id: accountId,
        csrf_token: 'csrf',
        created_at: expiresAt - 14 * DAY_MS,
        expires_at: expiresAt,
      })
      .execute();
  });
}

/** Which of `ids` are still in `table` (by its `id` column). */
export async function present(
  db: Kysely<DB>,
  table: 'events' | 'webhook_deliveries' | 'webhook_attempts',
  ids: string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom(table).select('id').where('id', 'in', ids).execute();
  return rows.map((row) => row.id).sort();
}

/** Which of `keys` still have an idempotency record of `accountId`. */
export async function presentKeys(
  db: Kysely<DB>,
  accountId: string,
  keys: string[],
): Promise<string[]> {
  const rows = await db
    .selectFrom('idempotency_keys')
    .select('key')
    .where('account_id', '=', accountId)
    .where('key', 'in', keys)
    .execute();
  return rows.map((row) => row.key).sort();
}

/** Which of `tokenHashes` still have a session. */
export async function presentSessions(db: Kysely<DB>, tokenHashes: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('sessions')
    .select('token_hash')
    .where('token_hash', 'in', tokenHashes)
    .execute();
  return rows.map((row) => row.token_hash).sort();
}
