import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/lib/ids.ts';

test('ids made one after another in the same millisecond sort in the order they were made', () => {
  const now = Date.now();
  const ids = Array.from({ length: 2000 }, () => newId('ct', now));
  for (let i = 1; i < ids.length; i++)
    assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  assert.equal(new Set(ids).size, ids.length);
});

test('an id of a later millisecond sorts after every id of an earlier one', () => {
  const now = Date.now();
  const earlier = Array.from({ length: 50 }, () => newId('msg', now));
  const later = newId('msg', now + 1);
  for (const id of earlier) assert.ok(id < later);
});

test('ids keep their shape: prefix, 8 time characters and 14 more, all base62', () => {
  for (let i = 0; i < 100; i++)
    assert.match(newId('msg', 1_700_000_000_000), /^msg_[0-9A-Za-z]{22}$/);
});
