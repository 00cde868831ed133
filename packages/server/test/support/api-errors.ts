import assert from 'node:assert/strict';
import type { Store } from '../../src/store/store.ts';
import type { TestResponse } from './http.ts';

/**
 * Asserts the one shape every failure has: the status, `{error: {type,
 * message[, param]}}` and nothing else, as JSON, with a request id.
 */
export function assertApiError(
  res: TestResponse,
  status: number,
  type: string,
  param?: string,
): asserts res is TestResponse<{ error: { type: string; message: string; param?: string } }> {
  const context = `${res.status} ${res.text.slice(0, 300)}`;
  assert.equal(res.status, status, context);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, context);
  assert.match(res.headers.get('request-id') ?? '', /^req_[0-9A-Za-z]+$/, context);
  assert.deepEqual(Object.keys(res.body ?? {}), ['error'], context);
  const error = res.body.error;
  const keys = Object.keys(error).sort();
  assert.deepEqual(keys, param === undefined ? ['message', 'type'] : ['message', 'param', 'type']);
  assert.equal(error.type, type, context);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0, 'the message says what went wrong');
  if (param !== undefined) assert.equal(error.param, param, context);
}

/** Everything a write could have left behind: contacts, events and idempotency records. */
async function storedRows(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['contacts', 'events', 'idempotency_keys'] as const) {
    const row = await store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

/** Runs `fn` and asserts that it stored nothing at all. */
export async function assertStoresNothing(store: Store, fn: () => Promise<void>): Promise<void> {
  const before = await storedRows(store);
  await fn();
  assert.deepEqual(await storedRows(store), before, 'a rejected request stores nothing');
}
