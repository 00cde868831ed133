import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upkeepWarning } from '../../src/store/engine/postgres-upkeep.ts';

test('a PostgreSQL server without autovacuum is reported at start, with what to do instead', () => {
  const warning = upkeepWarning({ autovacuum: 'off', trackCounts: 'on' });
  assert.match(warning ?? '', /autovacuum is off/);
  assert.match(warning ?? '', /VACUUM \(ANALYZE\)/);
});

test('a PostgreSQL server without the counts autovacuum goes by is reported too', () => {
  assert.match(
    upkeepWarning({ autovacuum: 'on', trackCounts: 'off' }) ?? '',
    /track_counts is off/,
  );
  assert.match(
    upkeepWarning({ autovacuum: 'off', trackCounts: 'off' }) ?? '',
    /autovacuum and track_counts are off/,
  );
});

test('a PostgreSQL server with autovacuum on, or one that cannot say, is not reported', () => {
  assert.equal(upkeepWarning({ autovacuum: 'on', trackCounts: 'on' }), null);
  assert.equal(upkeepWarning({ autovacuum: null, trackCounts: null }), null);
});
