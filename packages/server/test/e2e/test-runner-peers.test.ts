import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import {
  ensureDebianPeers,
  postgresAnswers,
  startThrowawayPostgres,
} from '../../../../scripts/test-peers.ts';

test('with no PostgreSQL at the configured URL, the test runner starts a throwaway one and removes it after', async () => {
  assert.equal(await postgresAnswers('postgres://postgres@127.0.0.1:1/test'), false);
  const server = await startThrowawayPostgres();
  try {
    assert.equal(await postgresAnswers(server.url), true);
    // What the suites do with it: databases of their own, dropped with FORCE.
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('CREATE DATABASE sb_runner_probe');
    await client.query('DROP DATABASE sb_runner_probe WITH (FORCE)');
    await client.end();
  } finally {
    await server.stop();
  }
  assert.equal(await postgresAnswers(server.url), false);
});

test('a peer that is installed needs nothing done', () => {
  assert.equal(
    ensureDebianPeers([
      { what: 'a shell', path: '/bin/sh', packages: ['dash'], override: 'UNUSED' },
    ]),
    null,
  );
});
