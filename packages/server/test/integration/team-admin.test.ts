import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { createUser } from '../../src/commands/create-user.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import { subscriptionsOfAccount } from '../../src/store/repos/push.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

const PASSWORD = 'a long enough password';

interface Session {
  cookie: string;
  csrf: string;
}

for (const engine of ENGINES) {
  describe(`owners manage their team [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let other: TestAccount;
    let passwordHash: string;
    let counter = 0;

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('Acme');
      other = await t.newAccount('Other');
      passwordHash = await hashPassword(PASSWORD);
    });
    after(() => t.close());

    async function newUser(account: TestAccount, role: 'owner' | 'member') {
      const email = `team${++counter}@example.com`;
      const user = await t.store.write((tx) =>
        createUser(
          tx,
          { accountId: account.accountId, email, role, passwordHash },
          { clock: { now: Date.now } },
        ),
      );
      return { id: user.id, email };
    }

    function signIn(email: string, password = PASSWORD) {
      return fetch(`${t.url}/app/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
    }

    async function session(email: string, password = PASSWORD): Promise<Session> {
      const res = await signIn(email, password);
      assert.equal(res.status, 200, await res.clone().text());
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      return { cookie, csrf: ((await res.json()) as { csrfToken: string }).csrfToken };
    }

    function call(s: Session, method: string, path: string, body?: unknown) {
      const headers: Record<string, string> = { cookie: s.cookie, 'x-csrf-token': s.csrf };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${t.url}/app/api${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    }

    async function channel(s: Session): Promise<WebSocket> {
      const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`, {
        headers: { cookie: s.cookie },
      });
      await new Promise((resolve, reject) => {
        socket.once('message', resolve);
        socket.once('error', reject);
      });
      return socket;
    }

    /** Resolves with the close code and how long it took, or null after `ms`. */
    function closing(socket: WebSocket, ms: number): Promise<{ code: number; ms: number } | null> {
      const start = performance.now();
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(null), ms);
        socket.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, ms: performance.now() - start });
        });
      });
    }

    const teamRow = async (s: Session, id: string) => {
      const res = await call(s, 'GET', '/team');
      const body = (await res.json()) as {
        data: { id: string; role: string; disabled: boolean }[];
      };
      return body.data.find((u) => u.id === id);
    };

    test('removing a teammate ends their sessions and closes their open channels within a second', async () => {
      const owner = await session((await newUser(acct, 'owner')).email);
      const member = await newUser(acct, 'member');
      const [tab, phone] = [await session(member.email), await session(member.email)];
      const sockets = [await channel(tab), await channel(phone)];
      try {
        const closed = sockets.map((s) => closing(s, 1_000));
        const res = await call(owner, 'DELETE', `/team/${member.id}`);
        assert.equal(res.status, 200, await res.clone().text());
        for (const result of await Promise.all(closed)) {
          assert.ok(result, 'the channel closed within a second');
          assert.equal(result.code, 4401);
        }
        assert.equal((await call(tab, 'GET', '/me')).status, 401);
        assert.equal((await signIn(member.email)).status, 401, 'the login is gone');
        assert.equal(await teamRow(owner, member.id), undefined);
      } finally {
        for (const s of sockets) s.terminate();
      }
    });

    test("a removed teammate's assignments, devices and read marks go with them; a disabled one's devices hear no pushes", async () => {
      const owner = await session((await newUser(acct, 'owner')).email);
      const [removed, disabled] = [await newUser(acct, 'member'), await newUser(acct, 'member')];
      const now = Date.now();
      await t.store.write(async (tx) => {
        for (const user of [removed, disabled]) {
          await tx.db
            .insertInto('push_subscriptions')
            .values({
              endpoint: `https://push.example.com/${user.id}`,
              user_id: user.id,
              account_id: acct.accountId,
              p256dh: 'key',
              auth: 'auth',
              created_at: now,
            })
            .execute();
        }
        await tx.db
          .insertInto('conversation_states')
          .values({
            conversation_id: `conv_${removed.id}`,
            status: 'open',
            assignee_id: removed.id,
            updated_at: now,
          })
          .execute();
        await tx.db
          .insertInto('conversation_reads')
          .values({
            conversation_id: `conv_${removed.id}`,
            user_id: removed.id,
            read_at: now,
            marked_unread: 0,
          })
          .execute();
      });
      const pushedTo = async () =>
        (await subscriptionsOfAccount(t.store.db, acct.accountId)).map((row) => row.user_id);
      assert.deepEqual((await pushedTo()).sort(), [removed.id, disabled.id].sort());

      assert.equal((await call(owner, 'DELETE', `/team/${removed.id}`)).status, 200);
      assert.equal(
        (await call(owner, 'PATCH', `/team/${disabled.id}`, { disabled: true })).status,
        200,
      );
      assert.deepEqual(await pushedTo(), [], 'neither hears pushes');
      const state = await t.store.db
        .selectFrom('conversation_states')
        .select('assignee_id')
        .where('conversation_id', '=', `conv_${removed.id}`)
        .executeTakeFirstOrThrow();
      assert.equal(state.assignee_id, null, 'the conversation is unassigned');
      const traces = await t.store.db
        .selectFrom('conversation_reads')
        .select('user_id')
        .where('user_id', '=', removed.id)
        .execute();
      assert.deepEqual(traces, []);

      assert.equal(
        (await call(owner, 'PATCH', `/team/${disabled.id}`, { disabled: false })).status,
        200,
      );
      assert.deepEqual(await pushedTo(), [disabled.id], 'enabled again, their devices hear pushes');
    });

    test('a disabled teammate is signed out at once and cannot sign in until enabled again', async () => {
      const owner = await session((await newUser(acct, 'owner')).email);
      const member = await newUser(acct, 'member');
      const tab = await session(member.email);
      const socket = await channel(tab);
      try {
        const closed = closing(socket, 1_000);
        const res = await call(owner, 'PATCH', `/team/${member.id}`, { disabled: true });
        assert.equal(res.status, 200, await res.clone().text());
        assert.equal(((await res.json()) as { disabled: boolean }).disabled, true);
        assert.equal((await closed)?.code, 4401);
        assert.equal((await call(tab, 'GET', '/me')).status, 401);
        const refused = await signIn(member.email);
        assert.equal(refused.status, 401);
        assert.match(
          ((await refused.json()) as { error: { message: string } }).error.message,
          /disabled/,
        );
        assert.equal((await signIn(member.email, 'a wrong password')).status, 401);
        assert.equal(
          (await call(owner, 'PATCH', `/team/${member.id}`, { disabled: false })).status,
          200,
        );
        await session(member.email);
        assert.equal((await teamRow(owner, member.id))?.disabled, false);
      } finally {
        socket.terminate();
      }
    });

    test('an owner changes a role, and the new role governs the next request', async () => {
      const owner = await session((await newUser(acct, 'owner')).email);
      const member = await newUser(acct, 'member');
      const theirs = await session(member.email);
      assert.equal((await call(theirs, 'GET', '/keys')).status, 404);
      const res = await call(owner, 'PATCH', `/team/${member.id}`, { role: 'owner' });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal((await call(theirs, 'GET', '/keys')).status, 200);
      assert.equal(
        (await call(owner, 'PATCH', `/team/${member.id}`, { role: 'member' })).status,
        200,
      );
      assert.equal((await call(theirs, 'GET', '/keys')).status, 404);
      assert.equal((await teamRow(owner, member.id))?.role, 'member');
    });

    test('a password reset signs the teammate out and only the new password signs in', async () => {
      const owner = await session((await newUser(acct, 'owner')).email);
      const member = await newUser(acct, 'member');
      const tab = await session(member.email);
      const res = await call(owner, 'PATCH', `/team/${member.id}`, {
        password: 'brand new secret',
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.ok(!(await res.text()).includes('brand new secret'), 'the password is not echoed');
      assert.equal((await call(tab, 'GET', '/me')).status, 401);
      assert.equal((await signIn(member.email)).status, 401);
      await session(member.email, 'brand new secret');
    });

    test('bad changes are refused with an error naming the field and change nothing', async () => {
      const ownerUser = await newUser(acct, 'owner');
      const owner = await session(ownerUser.email);
      const member = await newUser(acct, 'member');
      const stranger = await newUser(other, 'member');
      const cases: [string, string, unknown, number, string | undefined][] = [
        ['PATCH', `/team/${member.id}`, { password: 'short' }, 422, 'password'],
        ['PATCH', `/team/${member.id}`, { role: 'admin' }, 422, undefined],
        ['PATCH', `/team/${member.id}`, {}, 422, undefined],
        ['PATCH', `/team/${ownerUser.id}`, { role: 'member' }, 422, 'role'],
        ['PATCH', `/team/${ownerUser.id}`, { disabled: true }, 422, 'disabled'],
        ['DELETE', `/team/${ownerUser.id}`, undefined, 422, 'id'],
        ['PATCH', `/team/${stranger.id}`, { disabled: true }, 404, undefined],
        ['DELETE', `/team/${stranger.id}`, undefined, 404, undefined],
        ['DELETE', '/team/usr_nobody', undefined, 404, undefined],
      ];
      for (const [method, path, body, status, param] of cases) {
        const res = await call(owner, method, path, body);
        assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
        const error = ((await res.json()) as { error: { type: string; param?: string } }).error;
        assert.ok(error.type);
        if (param) assert.equal(error.param, param);
      }
      await session(member.email);
      await session(stranger.email);
      assert.equal((await teamRow(owner, ownerUser.id))?.role, 'owner');
      assert.equal((await teamRow(owner, member.id))?.disabled, false);
    });

    test('members cannot manage the team', async () => {
      const member = await session((await newUser(acct, 'member')).email);
      const target = await newUser(acct, 'member');
      assert.equal((await call(member, 'DELETE', `/team/${target.id}`)).status, 404);
      assert.equal(
        (await call(member, 'PATCH', `/team/${target.id}`, { disabled: true })).status,
        404,
      );
      await session(target.email);
    });
  });
}
