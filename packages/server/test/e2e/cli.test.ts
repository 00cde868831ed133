import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sha256Hex, verifyPassword } from '../../src/lib/secrets.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { countAccounts } from '../../src/store/repos/accounts.ts';
import { findUserByEmail } from '../../src/store/repos/users.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import {
  jsonOutput,
  runCli,
  startServe,
  type CliResult,
  type ServeProcess,
} from '../support/processes.ts';

const SANDBOX = /^\+1\d{3}55501\d{2}$/;
const TEST_SECRET = /^sk_test_[0-9A-Za-z]{32,}$/;
const LIVE_SECRET = /^sk_live_[0-9A-Za-z]{32,}$/;

function assertExit(result: CliResult, code: number): void {
  assert.equal(
    result.code,
    code,
    `exit ${result.code} (signal ${result.signal})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  );
}

/** Opens the same storage as the child processes, runs `fn`, closes it. */
async function withStore<T>(database: TestDatabase, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(database.options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Polls `check` (at most `attempts` x 100 ms) until it is true. */
async function eventually(check: () => boolean, what: string, attempts = 50): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (check()) return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

for (const engine of ENGINES) {
  describe(`switchboard CLI [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    /** Every database and server a test starts, cleaned up even when it fails. */
    const extraDatabases: TestDatabase[] = [];
    const servers: ServeProcess[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      env = { ...database.env, SWITCHBOARD_LOG_LEVEL: 'silent' };
    });
    after(async () => {
      for (const server of servers) await server.stop(5_000);
      for (const extra of extraDatabases) await extra.drop();
      await database.drop();
    });

    async function createAccount(name = 'CLI account'): Promise<string> {
      const result = await runCli(['accounts', 'create', '--name', name, '--json'], env);
      assertExit(result, 0);
      return jsonOutput(result).id as string;
    }

    async function createKey(
      accountId: string,
      mode: 'test' | 'live',
    ): Promise<{ id: string; secret: string }> {
      const result = await runCli(
        ['keys', 'create', '--account', accountId, '--mode', mode, '--json'],
        env,
      );
      assertExit(result, 0);
      return jsonOutput(result);
    }

    async function serve(extraEnv: Record<string, string> = {}): Promise<ServeProcess> {
      const server = await startServe({ ...env, ...extraEnv });
      servers.push(server);
      return server;
    }

    async function freshDatabase(): Promise<TestDatabase> {
      const fresh = await createTestDatabase(engine);
      extraDatabases.push(fresh);
      return fresh;
    }

    test('accounts create --json prints one JSON document with the id, name and 3+ sandbox numbers', async () => {
      const result = await runCli(['accounts', 'create', '--name', 'Acme Plumbing', '--json'], env);
      assertExit(result, 0);
      const account = jsonOutput(result);
      assert.deepEqual(Object.keys(account).sort(), ['id', 'name', 'testNumbers']);
      assert.match(account.id, /^acct_[0-9A-Za-z]+$/);
      assert.equal(account.name, 'Acme Plumbing');
      assert.ok(Array.isArray(account.testNumbers));
      assert.ok(account.testNumbers.length >= 3, `3+ numbers: ${account.testNumbers}`);
      for (const phone of account.testNumbers) assert.match(phone, SANDBOX);
      assert.equal(new Set(account.testNumbers).size, account.testNumbers.length, 'distinct');
    });

    test('accounts create without --json prints a line for people, not JSON', async () => {
      const result = await runCli(['accounts', 'create', '--name', 'Human'], env);
      assertExit(result, 0);
      assert.match(result.stdout, /acct_/);
      assert.throws(() => JSON.parse(result.stdout));
    });

    test('keys create --mode test prints the id, mode and an sk_test_ secret stored only as a hash', async () => {
      const accountId = await createAccount();
      const result = await runCli(
        ['keys', 'create', '--account', accountId, '--mode', 'test', '--json'],
        env,
      );
      assertExit(result, 0);
      const key = jsonOutput(result);
      assert.deepEqual(Object.keys(key).sort(), ['id', 'mode', 'secret']);
      assert.match(key.id, /^key_[0-9A-Za-z]+$/);
      assert.equal(key.mode, 'test');
      assert.match(key.secret, TEST_SECRET);
      const row = await withStore(database, (store) =>
        store.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirst(),
      );
      assert.ok(row, 'the key is stored');
      assert.equal(row.key_hash, sha256Hex(key.secret));
      assert.ok(
        !Object.values(row).some((value) => String(value).includes(key.secret.slice(8, 24))),
        'no column holds the secret',
      );
    });

    test('keys create --mode live prints an sk_live_ secret', async () => {
      const accountId = await createAccount();
      const key = await createKey(accountId, 'live');
      assert.match(key.id, /^key_/);
      assert.match(key.secret, LIVE_SECRET);
    });

    test('keys create for an unknown account fails with a JSON not_found document', async () => {
      const result = await runCli(
        ['keys', 'create', '--account', 'acct_nope', '--mode', 'test', '--json'],
        env,
      );
      assertExit(result, 1);
      const document = jsonOutput(result);
      assert.equal(document.error.type, 'not_found');
    });

    test('numbers add --mode live provisions any E.164 number', async () => {
      const accountId = await createAccount();
      const result = await runCli(
        ['numbers', 'add', '--account', accountId, '--mode', 'live', '+14155550100', '--json'],
        env,
      );
      assertExit(result, 0);
      const number = jsonOutput(result);
      assert.match(number.id, /^pn_/);
      assert.equal(number.accountId, accountId);
      assert.equal(number.mode, 'live');
      assert.equal(number.phone, '+14155550100');
    });

    test('numbers add in test mode refuses a number outside the sandbox range with a JSON error', async () => {
      const accountId = await createAccount();
      const result = await runCli(
        ['numbers', 'add', '--account', accountId, '--mode', 'test', '+14155551234', '--json'],
        env,
      );
      assert.notEqual(result.code, 0, 'a non-zero exit');
      const document = jsonOutput(result);
      assert.deepEqual(Object.keys(document), ['error']);
      assert.equal(document.error.type, 'validation_error');
      assert.equal(typeof document.error.message, 'string');
      const stored = await withStore(database, (store) =>
        store.db
          .selectFrom('phone_numbers')
          .select('id')
          .where('phone', '=', '+14155551234')
          .execute(),
      );
      assert.equal(stored.length, 0, 'nothing was provisioned');
    });

    test('numbers add refuses a number that is not E.164, and one already provisioned', async () => {
      const accountId = await createAccount();
      const notE164 = await runCli(
        ['numbers', 'add', '--account', accountId, '--mode', 'live', '4155550100', '--json'],
        env,
      );
      assert.notEqual(notE164.code, 0);
      assert.equal(jsonOutput(notE164).error.type, 'validation_error');
      const args = ['numbers', 'add', '--account', accountId, '--mode', 'live', '+14155550177'];
      assertExit(await runCli([...args, '--json'], env), 0);
      const twice = await runCli([...args, '--json'], env);
      assert.notEqual(twice.code, 0);
      assert.equal(jsonOutput(twice).error.type, 'validation_error');
    });

    test('users create --json creates a member login by default, without printing its password', async () => {
      const accountId = await createAccount();
      const result = await runCli(
        [
          'users',
          'create',
          '--account',
          accountId,
          '--email',
          'a@b.co',
          '--password',
          'longenough',
          '--json',
        ],
        env,
      );
      assertExit(result, 0);
      const user = jsonOutput(result);
      assert.match(user.id, /^usr_/);
      assert.equal(user.accountId, accountId);
      assert.equal(user.email, 'a@b.co');
      assert.equal(user.role, 'member', 'an owner is made only when asked for');
      assert.ok(!result.stdout.includes('longenough'), 'the password is not printed');
      const row = await withStore(database, (store) => findUserByEmail(store.db, 'a@b.co'));
      assert.ok(row);
      assert.ok(!row.password_hash.includes('longenough'), 'only a hash is stored');
      assert.equal(await verifyPassword('longenough', row.password_hash), true);
      const owner = await runCli(
        [
          'users',
          'create',
          '--account',
          accountId,
          '--email',
          'o@b.co',
          '--password',
          'longenough',
        ].concat(['--role', 'owner', '--json']),
        env,
      );
      assertExit(owner, 0);
      assert.equal(jsonOutput(owner).role, 'owner');
    });

    test('bad usage exits 2, with a JSON usage error under --json', async () => {
      const accountId = await createAccount();
      const cases: string[][] = [
        ['frobnicate'],
        ['accounts', 'create'],
        ['accounts', 'create', '--name', 'X', '--no-such-flag'],
        ['keys', 'create', '--account', accountId],
        ['keys', 'create', '--account', accountId, '--mode', 'prod'],
        ['keys', 'revoke'],
        ['numbers', 'add', '--account', accountId, '--mode', 'live'],
        ['users', 'create', '--account', accountId, '--email', 'short@b.co', '--password', 'short'],
      ];
      // None of these writes anything, so they can run side by side.
      await Promise.all(
        cases.map(async (args) => {
          const plain = await runCli(args, env);
          assertExit(plain, 2);
          assert.ok(plain.stderr.length > 0, `${args.join(' ')} explains itself on stderr`);
          const json = await runCli([...args, '--json'], env);
          assertExit(json, 2);
          assert.equal(jsonOutput(json).error.type, 'usage', args.join(' '));
        }),
      );
      const user = await withStore(database, (store) => findUserByEmail(store.db, 'short@b.co'));
      assert.equal(user, undefined, 'a refused command changes nothing');
    });

    test('a key revoked by another process is refused by a running server on the very next request; SIGTERM exits 0', async () => {
      const server = await serve();
      // Created while the server runs: the CLI's writes are visible to it at once.
      const accountId = await createAccount('Revocation');
      const key = await createKey(accountId, 'test');
      const client = new ApiClient(`${server.url}`, key.secret);
      const created = await client.post('/v1/contacts', { phone: '+14155550180', name: 'Rev' });
      assert.equal(created.status, 201, created.text);
      const fetched = await client.get(`/v1/contacts/${created.body.id}`);
      assert.equal(fetched.status, 200);

      const revoked = await runCli(['keys', 'revoke', key.id, '--json'], env);
      assertExit(revoked, 0);
      assert.deepEqual(jsonOutput(revoked), { id: key.id, revoked: true });

      const refused = await client.get(`/v1/contacts/${created.body.id}`);
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.body.error.type, 'unauthorized');
      // A change is refused too: its key is checked where the change is made.
      const notCreated = await client.post('/v1/contacts', { phone: '+14155550181' });
      assert.equal(notCreated.status, 401, notCreated.text);

      const started = Date.now();
      const exit = await server.stop(10_000);
      assert.deepEqual(exit, { code: 0, signal: null }, server.stderr());
      assert.ok(Date.now() - started < 10_000, 'exits within 10 s');
    });

    test('keys revoke of an unknown key fails with a JSON not_found document', async () => {
      const result = await runCli(['keys', 'revoke', 'key_doesnotexist', '--json'], env);
      assertExit(result, 1);
      assert.equal(jsonOutput(result).error.type, 'not_found');
    });

    test('SIGTERM lets a keep-alive request in flight finish, then the server exits 0 at once', async () => {
      const server = await serve();
      const accountId = await createAccount('Shutdown');
      const key = await createKey(accountId, 'test');
      const agent = new Agent({ keepAlive: true });
      try {
        const body = JSON.stringify({ phone: '+14155550181' });
        let sendRest = () => {};
        const answered = new Promise<{ status: number; text: string; connection?: string }>(
          (resolve, reject) => {
            const req = request(
              `${server.url}/v1/contacts`,
              {
                method: 'POST',
                agent,
                headers: {
                  authorization: `Bearer ${key.secret}`,
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(body),
                },
              },
              (res) => {
                let text = '';
                res.setEncoding('utf8').on('data', (d: string) => (text += d));
                res.on('end', () =>
                  resolve({
                    status: res.statusCode ?? 0,
                    text,
                    connection: res.headers.connection,
                  }),
                );
              },
            );
            req.on('error', reject);
            req.write(body.slice(0, 4));
            sendRest = () => req.end(body.slice(4));
          },
        );
        // The request is in flight (headers read, body incomplete) when the signal comes.
        await sleep(300);
        const exit = server.stop(10_000);
        await sleep(300);
        sendRest();
        const res = await answered;
        assert.equal(res.status, 201, res.text);
        assert.equal(res.connection, 'close', 'the connection is not kept alive during shutdown');
        const started = Date.now();
        assert.deepEqual(await exit, { code: 0, signal: null }, server.stderr());
        assert.ok(
          Date.now() - started < 5_000,
          'an idle keep-alive connection does not hold it up',
        );
      } finally {
        agent.destroy();
      }
    });

    test('serve on an empty store prints a demo test key, test numbers and a softphone login, once', async () => {
      const fresh = await freshDatabase();
      const freshEnv = { ...fresh.env, SWITCHBOARD_LOG_LEVEL: 'silent' };
      const first = await startServe(freshEnv);
      servers.push(first);
      await eventually(() => /login \S+ \/ \S+/.test(first.stdout()), 'the demo banner');
      const banner = first.stdout();

      const key = /\bsk_test_[0-9A-Za-z]+/.exec(banner)?.[0];
      assert.ok(key, `a test key in:\n${banner}`);
      assert.match(key, TEST_SECRET);
      const numbersLine = /test numbers\s+(.+)/.exec(banner)?.[1] ?? '';
      const sandbox = numbersLine.match(/\+\d+/g) ?? [];
      assert.ok(sandbox.length >= 3, `3+ test numbers in:\n${banner}`);
      for (const phone of sandbox) assert.match(phone, SANDBOX);
      const login = /login (\S+@\S+) \/ (\S+)/.exec(banner);
      assert.ok(login, `a softphone login in:\n${banner}`);
      const [, email, password] = login;

      const contact = await new ApiClient(first.url, key).post('/v1/contacts', {
        phone: '+14155550182',
        name: 'Demo',
      });
      assert.equal(contact.status, 201, contact.text);
      assert.equal((await first.stop()).code, 0);

      await withStore(fresh, async (store) => {
        const user = await findUserByEmail(store.db, email!);
        assert.ok(user, 'the printed login exists');
        assert.equal(await verifyPassword(password!, user.password_hash), true);
        const provisioned = await store.db
          .selectFrom('phone_numbers')
          .select('phone')
          .where('account_id', '=', user.account_id)
          .where('mode', '=', 'test')
          .execute();
        assert.deepEqual(provisioned.map((p) => p.phone).sort(), [...sandbox].sort());
      });

      const second = await startServe(freshEnv);
      servers.push(second);
      const again = await new ApiClient(second.url, key).post('/v1/contacts', {
        phone: '+14155550183',
      });
      assert.equal(again.status, 201, 'the demo key still works after a restart');
      assert.equal((await second.stop()).code, 0);
      assert.doesNotMatch(second.stdout(), /sk_test_/, 'no second demo key is printed');
      assert.equal(await withStore(fresh, (store) => countAccounts(store.db)), 1);
    });

    test('logs are JSON lines with a reqId and never contain an API key secret', async () => {
      // An account exists, so serve prints no demo key: any secret in the output is a leak.
      const accountId = await createAccount('Logs');
      const key = await createKey(accountId, 'test');
      const unknownKey = `sk_test_${randomBase62(40)}`;
      const server = await serve({ SWITCHBOARD_LOG_LEVEL: 'info' });
      const good = new ApiClient(server.url, key.secret);
      const created = await good.post('/v1/contacts', { phone: '+14155550184' });
      assert.equal(created.status, 201);
      const invalid = await good.post('/v1/contacts', { phone: 'nope' });
      assert.equal(invalid.status, 422);
      const unauthorized = await new ApiClient(server.url, unknownKey).get('/v1/contacts/ct_x');
      assert.equal(unauthorized.status, 401);
      const basic = await new ApiClient(server.url, null).get('/v1/contacts/ct_x', {
        authorization: `Basic ${Buffer.from(`${key.secret}:`).toString('base64')}`,
      });
      assert.equal(basic.status, 401);
      assert.equal((await server.stop()).code, 0);

      const output = server.stdout() + server.stderr();
      for (const secret of [key.secret, unknownKey]) {
        assert.ok(!output.includes(secret), 'the secret never reaches the logs');
        assert.ok(!output.includes(secret.slice(8)), 'not even its random part');
      }
      assert.ok(
        !output.includes(Buffer.from(`${key.secret}:`).toString('base64')),
        'nor its Basic encoding',
      );
      const lines = server
        .stdout()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          try {
            return JSON.parse(line) as Record<string, unknown>;
          } catch {
            return null;
          }
        });
      assert.ok(
        lines.every((line) => line !== null),
        `every stdout line is JSON:\n${server.stdout()}`,
      );
      const reqIds = new Set(lines.map((line) => line?.reqId).filter(Boolean));
      assert.ok(reqIds.size > 0, 'log lines carry a reqId');
      for (const res of [created, unauthorized]) {
        const id = res.headers.get('request-id');
        assert.ok(id && reqIds.has(id), `the request-id ${id} is the reqId in the logs`);
      }
    });
  });
}
