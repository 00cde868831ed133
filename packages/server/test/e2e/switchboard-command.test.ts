// The `switchboard` command itself: the Node it runs on, its compile cache, and how `serve`
// starts (V8 flags, malloc arenas, PostgreSQL's semi-spaces and autovacuum warning).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, ENGINES } from '../support/engines.ts';
import { jsonOutput, runCli, startServe, type CliResult } from '../support/processes.ts';

function assertExit(result: CliResult, code: number): void {
  assert.equal(
    result.code,
    code,
    `exit ${result.code} (signal ${result.signal})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  );
}

/** A Node older than 24 on PATH, outside the project's own (as a machine's system Node may be). */
function olderSystemNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules') || !existsSync(join(dir, 'node'))) continue;
    const probe = spawnSync(join(dir, 'node'), ['-p', 'process.versions.node'], {
      encoding: 'utf8',
    });
    if (probe.status === 0 && Number(probe.stdout.split('.')[0]) < 24) return join(dir, 'node');
  }
  return undefined;
}

describe('the switchboard command', () => {
  test('run by an older system Node, it hands itself to the project’s Node 24', async (t) => {
    const older = olderSystemNode();
    if (!older) return t.skip('no Node older than 24 on PATH');
    const cacheHome = mkdtempSync(join(tmpdir(), 'switchboard-cache-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
    try {
      const env = { XDG_CACHE_HOME: cacheHome, SWITCHBOARD_DATA_DIR: dataDir };
      const help = await runCli(['--help'], env, 30_000, older);
      assertExit(help, 0);
      assert.equal(help.stdout, (await runCli(['--help'], env)).stdout);
      // node:sqlite and type stripping: what only Node 24 runs.
      const created = await runCli(
        ['accounts', 'create', '--name', 'Old', '--json'],
        env,
        30_000,
        older,
      );
      assertExit(created, 0);
      assert.equal(jsonOutput(created).name, 'Old');
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('keeps Node’s compile cache in the user’s cache directory, so later starts skip compiling the sources', async () => {
    const cacheHome = mkdtempSync(join(tmpdir(), 'switchboard-cache-'));
    // Where Node would put it by default: shared by every user of the machine.
    const tmp = mkdtempSync(join(tmpdir(), 'switchboard-tmp-'));
    // (NODE_COMPILE_CACHE would turn the cache on by itself, whatever the command does.)
    const env = { XDG_CACHE_HOME: cacheHome, TMPDIR: tmp };
    try {
      const first = await runCli(['--help'], env);
      assertExit(first, 0);
      const cached = readdirSync(join(cacheHome, 'switchboard', 'node-compile-cache'), {
        recursive: true,
      });
      assert.ok(cached.length > 0, 'the first start fills the cache');
      assert.deepEqual(readdirSync(tmp), [], 'nothing in the shared temporary directory');
      const second = await runCli(['--help'], env);
      assertExit(second, 0);
      assert.equal(second.stdout, first.stdout);
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('serve runs in its own process with the server’s V8 heap and compiler flags and two malloc arenas, its modules compiled ahead once', async () => {
    const cacheHome = mkdtempSync(join(tmpdir(), 'switchboard-cache-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
    const env = { XDG_CACHE_HOME: cacheHome, SWITCHBOARD_DATA_DIR: dataDir };
    const cache = join(cacheHome, 'switchboard', 'node-compile-cache');
    const warmMarkers = () => readdirSync(cache).filter((name) => name.startsWith('warm-'));
    try {
      const server = await startServe(env);
      // The same process, replaced in place by one started with the flags.
      const command = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
      for (const flag of [
        '--max-semi-space-size=2',
        '--no-allocation-site-pretenuring',
        '--heap-growing-percent=25',
        '--no-concurrent-recompilation',
        '--liftoff-only',
      ]) {
        assert.ok(command.includes(flag), `${flag} in ${command.join(' ')}`);
      }
      const environment = readFileSync(`/proc/${server.child.pid}/environ`, 'utf8').split('\0');
      assert.ok(environment.includes('MALLOC_ARENA_MAX=2'), 'two malloc arenas');
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
      assert.equal(warmMarkers().length, 1, 'the cache was filled before the server started');
      // Unchanged sources: the next start finds the cache warm and fills nothing again.
      const again = await startServe(env);
      assert.deepEqual(await again.stop(), { code: 0, signal: null });
      assert.equal(warmMarkers().length, 1);
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  if (ENGINES.includes('postgres')) {
    test('serve on PostgreSQL gives its threads 4 MB semi-spaces: the driver allocates for every query', async () => {
      const database = await createTestDatabase('postgres');
      try {
        const server = await startServe(database.env);
        const command = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
        assert.ok(command.includes('--max-semi-space-size=4'), command.join(' '));
        assert.ok(!command.includes('--max-semi-space-size=2'), command.join(' '));
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
      } finally {
        await database.drop();
      }
    });

    test("serve on PostgreSQL warns at start, once, exactly when the server's autovacuum cannot run", async () => {
      const database = await createTestDatabase('postgres');
      try {
        const admin = new pg.Client({ connectionString: database.options.databaseUrl! });
        await admin.connect();
        const { rows } = await admin
          .query<{ off: boolean }>(
            `select current_setting('autovacuum') = 'off' or current_setting('track_counts') = 'off' as off`,
          )
          .finally(() => admin.end());
        const server = await startServe(database.env);
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        const warnings = server
          .stdout()
          .split('\n')
          .filter((line) => line.includes('"autovacuum"'));
        // This machine's server decides which branch runs here; postgres-upkeep.test.ts has both.
        assert.equal(warnings.length, rows[0]!.off ? 1 : 0, server.stdout());
        for (const line of warnings) assert.equal(JSON.parse(line).level, 40);
      } finally {
        await database.drop();
      }
    });
  }
});
