import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { randomBase62 } from '../../src/lib/ids.ts';
import type { Engine } from '../../src/store/engine/capabilities.ts';
import type { StoreOptions } from '../../src/store/store.ts';

/** The PostgreSQL server tests create their databases on (trust auth on this machine). */
export const TEST_PG_URL =
  process.env.SWITCHBOARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Every engine the suite runs on. Both by default: a PostgreSQL outage fails the
 * suite rather than quietly skipping half of it. `SWITCHBOARD_TEST_ENGINES=sqlite`
 * narrows a local run.
 */
export const ENGINES: Engine[] = (process.env.SWITCHBOARD_TEST_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');

/** A fresh, empty place to store data for one test, and how to remove it. */
export interface TestDatabase {
  options: StoreOptions;
  /** The environment a child `switchboard` process needs to use the same storage. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Waits (at most 100 x 20 ms) until no session is connected to database `name`.
 * pg's `pool.end()` resolves before the sockets of its clients have closed; a
 * `DROP DATABASE … WITH (FORCE)` in that moment makes those ending clients emit
 * an 'error' nobody listens to any more, which crashes the test process.
 */
async function waitForNoSessions(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { rows } = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if (Number(rows[0]?.n ?? 0) === 0) return;
      await sleep(20);
    }
  } finally {
    await client.end();
  }
}

/** Creates an empty database: a temporary directory (SQLite) or a new PostgreSQL database. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  if (engine === 'sqlite') {
    return {
      options: { dataDir, databaseUrl: null },
      env: { SWITCHBOARD_DATA_DIR: dataDir },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `sb_test_${randomBase62(12).toLowerCase()}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    options: { dataDir, databaseUrl: url.toString() },
    env: { SWITCHBOARD_DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await waitForNoSessions(name);
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
