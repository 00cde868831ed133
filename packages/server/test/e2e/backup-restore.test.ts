// `switchboard backup` and `switchboard restore` (README, "Backup and restore"): a backup
// taken by the CLI while a real server takes sends, restored into a fresh directory, holds
// every send acknowledged before it began, and its webhook secrets still sign. Real
// processes, a real receiver, real files.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { verifyWebhook } from '../../../sdk/src/webhooks/verify.ts';
import { openSqlite } from '../../src/store/engine/sqlite.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import {
  type CliResult,
  type ServeProcess,
  createAccountWithCli,
  jsonOutput,
  runCli,
  startServe,
} from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/** Sends acknowledged before the backup starts: counted, not timed. */
const BEFORE_BACKUP = 150;
/** The load runs until the backup has finished, and never past this many sends or LOAD_MS. */
const MAX_SENDS = 10_000;
const LOAD_MS = 60_000;
const IN_FLIGHT = 8;

function assertExit(result: CliResult, code: number): void {
  assert.equal(
    result.code,
    code,
    `exit ${result.code} (signal ${result.signal})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  );
}

/** A new empty directory, removed by `cleanUp`. */
const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-backup-'));
  made.push(dir);
  return dir;
}

/** The mode bits of a file (0o600 for owner-only). */
function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

for (const engine of ENGINES) {
  if (engine === 'postgres') {
    describe('backup and restore on PostgreSQL [postgres]', () => {
      let database: TestDatabase;
      before(async () => {
        database = await createTestDatabase('postgres');
      });
      after(async () => {
        await database.drop();
        for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
      });

      test('both commands refuse with the pg_dump/pg_restore recipe, exit non-zero and write nothing', async () => {
        const dir = tempDir();
        const env = { ...database.env, SWITCHBOARD_LOG_LEVEL: 'silent' };
        for (const args of [
          ['backup', '--to', join(dir, 'sb.db')],
          ['restore', '--from', join(dir, 'sb.db'), '--data', join(dir, 'data')],
        ]) {
          const human = await runCli(args, env);
          assertExit(human, 1);
          assert.match(
            human.stderr,
            /pg_dump --format=custom --file=switchboard\.dump "\$DATABASE_URL"/,
          );
          assert.match(
            human.stderr,
            /pg_restore --clean --if-exists --no-owner --dbname="\$DATABASE_URL" switchboard\.dump/,
          );
          assert.match(human.stderr, /SWITCHBOARD_SECRET_KEY/);
          const json = await runCli([...args, '--json'], env);
          assertExit(json, 1);
          const document = jsonOutput(json);
          assert.equal(document.error.type, 'unsupported_engine');
          assert.match(document.error.message, /pg_restore/);
        }
        assert.deepEqual(readdirSync(dir), [], 'nothing written');
      });
    });
    continue;
  }

  describe('backup and restore of the SQLite store [sqlite]', () => {
    const servers: ServeProcess[] = [];
    const receivers: Receiver[] = [];
    const databases: TestDatabase[] = [];

    after(async () => {
      for (const server of servers) {
        if (server.child.exitCode === null && server.child.signalCode === null) {
          server.child.kill('SIGKILL');
          await server.exited;
        }
      }
      for (const receiver of receivers) await receiver.close();
      for (const database of databases) await database.drop();
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    });

    const quiet = { SWITCHBOARD_LOG_LEVEL: 'silent', SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' };

    async function sqliteDatabase(): Promise<{ dataDir: string; env: Record<string, string> }> {
      const database = await createTestDatabase('sqlite');
      databases.push(database);
      return { dataDir: database.options.dataDir, env: { ...database.env, ...quiet } };
    }

    async function serve(env: Record<string, string>): Promise<ServeProcess> {
      const server = await startServe(env);
      servers.push(server);
      return server;
    }

    test('a backup taken during a send load holds every send acknowledged before it began, and restored into a fresh directory its webhook secrets still sign', async () => {
      const { dataDir, env } = await sqliteDatabase();
      // The per-key limit would turn most of the load into 429s.
      const loadEnv = { ...env, SWITCHBOARD_RATE_LIMIT: '1000000' };
      const { key, testNumbers } = await createAccountWithCli(loadEnv, 'Backup');
      const receiver = await startReceiver();
      receivers.push(receiver);
      const first = await serve(loadEnv);
      const client = new ApiClient(first.url, key);
      const endpoint = await client.post('/v1/webhook_endpoints', {
        url: `${receiver.url}/hooks`,
        events: ['contact.created'],
      });
      assert.equal(endpoint.status, 201, endpoint.text);

      const file = join(tempDir(), 'switchboard-backup.db');
      const dispatcher = new Agent({ connections: IN_FLIGHT, pipelining: 1 });
      const acknowledged: string[] = [];
      let ackedBeforeBackup: string[] | null = null;
      let ackedWhenBackupEnded = -1;
      let backup: Promise<CliResult> | null = null;
      let sent = 0;
      const deadline = performance.now() + LOAD_MS;
      const lane = async () => {
        while (ackedWhenBackupEnded < 0 && sent < MAX_SENDS && performance.now() < deadline) {
          const i = sent++;
          const res = await request(`${first.url}/v1/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              from: testNumbers[0],
              to: `+1415300${String(i % 10_000).padStart(4, '0')}`,
              body: `backup load ${i}`,
            }),
            dispatcher,
          });
          const body = (await res.body.json()) as { id?: string };
          if (res.statusCode !== 201 || !body.id) {
            assert.fail(`send ${i} answered ${res.statusCode}: ${JSON.stringify(body)}`);
          }
          acknowledged.push(body.id);
          if (backup === null && acknowledged.length >= BEFORE_BACKUP) {
            // Taken in the same turn as the backup starts: every one of these was answered 201.
            ackedBeforeBackup = [...acknowledged];
            backup = runCli(['backup', '--to', file, '--json'], env, 60_000).finally(() => {
              ackedWhenBackupEnded = acknowledged.length;
            });
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      // Read as the load stops: it stopped because the backup had ended, not at its bounds.
      const endedDuringLoad = ackedWhenBackupEnded >= 0;
      await dispatcher.close();
      assert.ok(backup && ackedBeforeBackup, `the backup started (${acknowledged.length} sends)`);
      const before: string[] = ackedBeforeBackup;
      const result = await (backup as Promise<CliResult>);
      assertExit(result, 0);
      assert.ok(
        acknowledged.length > before.length,
        'sends were acknowledged while the backup ran',
      );
      // One snapshot, not a copy that starts over at every commit of the server: the backup
      // ended while the load still ran, not once it stopped at its bound.
      assert.ok(endedDuringLoad, `the backup finished during the load (${sent} sends made)`);

      const document = jsonOutput(result);
      assert.equal(document.file, file);
      assert.equal(document.keyIncluded, true);
      assert.equal(document.keyFile, `${file}.key`);
      assert.equal(document.bytes, statSync(file).size);
      assert.ok(document.pages > 0);
      const secretKey = readFileSync(join(dataDir, 'secret.key'), 'utf8');
      assert.equal(readFileSync(`${file}.key`, 'utf8'), secretKey);
      assert.equal(modeOf(`${file}.key`), 0o600, 'the key file is its owner’s only');
      assert.equal(modeOf(file), 0o600, 'the backup is its owner’s only');
      assert.ok(!`${result.stdout}${result.stderr}`.includes(secretKey.trim()), 'key not printed');
      // Rollback mode (header bytes 18 and 19 are 1): one self-contained file, no log beside it.
      assert.deepEqual([...readFileSync(file).subarray(18, 20)], [1, 1]);

      const stopped = await first.stop();
      assert.equal(stopped.code, 0, first.stderr());
      // Nothing of the original is left to fall back on.
      rmSync(dataDir, { recursive: true, force: true });

      const fresh = join(tempDir(), 'restored');
      const restored = await runCli(['restore', '--from', file, '--data', fresh, '--json'], quiet);
      assertExit(restored, 0);
      assert.deepEqual(jsonOutput(restored), {
        dataDir: fresh,
        database: join(fresh, 'switchboard.db'),
        bytes: statSync(join(fresh, 'switchboard.db')).size,
        pages: document.pages,
        keyRestored: true,
        replaced: false,
      });
      assert.equal(readFileSync(join(fresh, 'secret.key'), 'utf8'), secretKey);
      assert.equal(modeOf(join(fresh, 'secret.key')), 0o600);
      const check = new DatabaseSync(join(fresh, 'switchboard.db'), { readOnly: true });
      try {
        assert.deepEqual(
          check
            .prepare('PRAGMA integrity_check')
            .all()
            .map((row) => Object.values(row)[0]),
          ['ok'],
        );
        assert.deepEqual(check.prepare('PRAGMA foreign_key_check').all(), []);
      } finally {
        check.close();
      }

      const second = await serve({ ...quiet, SWITCHBOARD_DATA_DIR: fresh });
      const after = new ApiClient(second.url, key);
      const missing: string[] = [];
      for (const id of before) {
        const res = await after.get(`/v1/messages/${id}`);
        if (res.status !== 200) missing.push(`${id}: ${res.status}`);
      }
      assert.deepEqual(missing, [], `${missing.length} of ${before.length} acknowledged before`);

      // The restored server opens the endpoint's sealed secret: its delivery verifies with
      // the secret the endpoint was created with, before the backup.
      const contact = await after.post('/v1/contacts', { phone: '+14155550177', name: 'Ada' });
      assert.equal(contact.status, 201, contact.text);
      const [delivery] = await receiver.waitFor('/hooks', 1, { timeoutMs: 20_000, intervalMs: 50 });
      const event = await verifyWebhook(
        delivery!.raw,
        String(delivery!.headers['x-service-signature']),
        endpoint.body.secret,
      );
      assert.equal(event.type, 'contact.created');
      assert.equal((event.data as any).id, contact.body.id);
      const end = await second.stop();
      assert.equal(end.code, 0, second.stderr());
    });

    test('restore refuses a file that is not a Switchboard backup and leaves the directory as it was', async () => {
      const dir = tempDir();
      const target = join(dir, 'data');
      const text = join(dir, 'notes.txt');
      writeFileSync(text, 'not a database at all\n');
      const foreign = join(dir, 'other.db');
      const other = new DatabaseSync(foreign);
      other.exec('CREATE TABLE things (id INTEGER PRIMARY KEY)');
      other.close();
      for (const [from, why] of [
        [text, /not an SQLite database/],
        [foreign, /no migrations table/],
        [join(dir, 'missing.db'), /does not exist/],
      ] as const) {
        const result = await runCli(['restore', '--from', from, '--data', target, '--json'], quiet);
        assertExit(result, 1);
        const { error } = jsonOutput(result);
        assert.match(error.message, why);
        assert.ok(!existsSync(target), `${from}: the data directory was not even made`);
      }
    });

    test('restore refuses a data directory a running server uses, even with --force', async () => {
      const { dataDir, env } = await sqliteDatabase();
      const { key } = await createAccountWithCli(env, 'Running');
      const file = join(tempDir(), 'backup.db');
      assertExit(await runCli(['backup', '--to', file], env), 0);
      const server = await serve(env);
      const contact = await new ApiClient(server.url, key).post('/v1/contacts', {
        phone: '+14155550188',
      });
      assert.equal(contact.status, 201, contact.text);

      const result = await runCli(['restore', '--from', file, '--force', '--json'], env);
      assertExit(result, 1);
      const { error } = jsonOutput(result);
      assert.equal(error.type, 'in_use');
      assert.match(error.message, /running Switchboard/);
      // The server goes on, with what it had (the contact is newer than the backup).
      const res = await new ApiClient(server.url, key).get(`/v1/contacts/${contact.body.id}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        readdirSync(dataDir).filter((name) => name.includes('.tmp-')),
        [],
        'no temporary file left',
      );
      await server.stop();
    });

    test('restore refuses a directory that already holds a database unless --force', async () => {
      const { env: sourceEnv } = await sqliteDatabase();
      await createAccountWithCli(sourceEnv, 'Source');
      const file = join(tempDir(), 'backup.db');
      assertExit(await runCli(['backup', '--to', file], sourceEnv), 0);
      const { dataDir, env } = await sqliteDatabase();
      const { key } = await createAccountWithCli(env, 'Existing');
      const database = join(dataDir, 'switchboard.db');
      const before = readFileSync(database);

      const refused = await runCli(['restore', '--from', file, '--json'], env);
      assertExit(refused, 1);
      assert.equal(jsonOutput(refused).error.type, 'not_empty');
      assert.ok(readFileSync(database).equals(before), 'the database is as it was');

      const forced = await runCli(['restore', '--from', file, '--force', '--json'], env);
      assertExit(forced, 0);
      assert.equal(jsonOutput(forced).replaced, true);
      // The existing account's key is gone with its database; the backup's account is there.
      const server = await serve(env);
      const res = await new ApiClient(server.url, key).get('/v1/contacts');
      assert.equal(res.status, 401, res.text);
      await server.stop();
    });

    test('restore removes a stale -wal left beside a missing database, which SQLite would replay onto the restored one', async () => {
      const { env } = await sqliteDatabase();
      await createAccountWithCli(env, 'Source');
      const file = join(tempDir(), 'backup.db');
      assertExit(await runCli(['backup', '--to', file], env), 0);
      // A log of another database's commits, left behind when its file was deleted by hand.
      const dataDir = tempDir();
      const database = join(dataDir, 'switchboard.db');
      const other = new DatabaseSync(database);
      other.exec('PRAGMA journal_mode = WAL');
      other.exec('PRAGMA wal_autocheckpoint = 0');
      other.exec('CREATE TABLE accounts (name TEXT)');
      other.exec("INSERT INTO accounts VALUES ('Stale')");
      const log = readFileSync(`${database}-wal`);
      other.close();
      rmSync(database);
      writeFileSync(`${database}-wal`, log);

      const restored = await runCli(['restore', '--from', file, '--data', dataDir], quiet);
      assertExit(restored, 0);
      // Opened as the server opens it (WAL), which is when a log beside it is read.
      const check = openSqlite(database, { durability: 'full' });
      try {
        const names = check.prepare('SELECT name FROM accounts').all();
        assert.deepEqual(
          names.map((row) => row.name),
          ['Source'],
        );
      } finally {
        check.close();
      }
    });

    test('with SWITCHBOARD_SECRET_KEY set, backup says the key is not in it and writes no key file', async () => {
      const { env } = await sqliteDatabase();
      const secretKey = Buffer.alloc(32, 7).toString('base64');
      const keyed = { ...env, SWITCHBOARD_SECRET_KEY: secretKey };
      await createAccountWithCli(keyed, 'Keyed');
      const file = join(tempDir(), 'backup.db');
      const result = await runCli(['backup', '--to', file, '--json'], keyed);
      assertExit(result, 0);
      const document = jsonOutput(result);
      assert.equal(document.keyIncluded, false);
      assert.equal(document.keyFile, null);
      assert.match(document.warning, /not in the backup.*SWITCHBOARD_SECRET_KEY/is);
      assert.ok(!existsSync(`${file}.key`));
      assert.ok(!result.stdout.includes(secretKey), 'key not printed');
      const human = await runCli(['backup', '--to', file], keyed);
      assertExit(human, 0);
      assert.match(human.stdout, /NOT in the backup/);
    });
  });
}
