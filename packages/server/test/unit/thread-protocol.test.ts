import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError } from '../../src/domain/errors.ts';
import { carryError, Outbox, restoreError } from '../../src/threads/protocol.ts';

describe('messages between the HTTP thread and the store thread', () => {
  test('a burst leaves in posts of at most 16, the rest at the end of the turn', async () => {
    const posts: number[][] = [];
    const outbox = new Outbox<number>((batch) => posts.push(batch));
    for (let i = 0; i < 40; i++) outbox.send(i);
    assert.deepEqual(
      posts.map((p) => p.length),
      [16, 16],
      'the first ones leave while the rest are still being made',
    );
    await nextTurn();
    assert.deepEqual(
      posts.map((p) => p.length),
      [16, 16, 8],
    );
    assert.deepEqual(posts.flat(), [...Array(40).keys()], 'in the order they were sent');
  });

  test('an API error crosses with its type, message, param and headers; any other as an internal error', () => {
    const api = restoreError(
      carryError(
        new ApiError('rate_limited', 'Slow down.', { param: 'x', headers: { 'retry-after': '2' } }),
      ),
    );
    assert.ok(api instanceof ApiError);
    assert.deepEqual(
      [api.type, api.message, api.param, api.headers, api.status],
      ['rate_limited', 'Slow down.', 'x', { 'retry-after': '2' }, 429],
    );
    const other = restoreError(carryError(new TypeError('boom')));
    assert.ok(!(other instanceof ApiError));
    assert.equal(other.message, 'boom');
    assert.equal(other.name, 'TypeError');
  });
});
