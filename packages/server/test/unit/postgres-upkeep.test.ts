import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upkeepWarning } from '../../src/store/postgres-upkeep.ts';

test('a PostgreSQL server without autovacuum is reported at start, with what to do instead', () => {
  const warning = upkeepWarning('off');
  assert.match(warning ?? '', /autovacuum is off/);
  assert.match(warning ?? '', /VACUUM \(ANALYZE\)/);
});

test('a PostgreSQL server with autovacuum on is not reported', () => {
  assert.equal(upkeepWarning('on'), null);
});
