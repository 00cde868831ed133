import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { createUser } from '../../src/commands/create-user.ts';
import { hashPassword, sha256Hex } from '../../src/lib/secrets.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

const PASSWORD = 'a long enough password';

interface Session {
  cookie: string;
  token: string;
  csrf: string;
  setCookie: string;
}

for (const engine of ENGINES) {
  describe(`softphone API sessions and access [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let other: TestAccount;
    let passwordHash: string;
    let counter = 0;

    before(async () => {
      t = await startTestApp(engine, { realtimeHeartbeatMs: 200 });
      acct = await t.newAccount('Acme');
      other = await t.newAccount('Other');
      passwordHash = await hashPassword(PASSWORD);
    });
    after(() => t.close());

    async function newUser(account: TestAccount, role: 'owner' | 'member'): Promise<string> {
      const email = `user${++counter}@example.com`;
      await t.store.write((tx) =>
        createUser(
          tx,
          { accountId: account.accountId, email, role, passwordHash },
          { clock: { now: Date.now } },
        ),
      );
      return email;
    }

    function signIn(email: string, password = PASSWORD, headers: Record<string, string> = {}) {
      return fetch(`${t.url}/app/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ email, password }),
      });
    }

    async function session(email: string): Promise<Session> {
      const res = await signIn(email);
      assert.equal(res.status, 200);
      const setCookie = res.headers.get('set-cookie')!;
      const cookie = setCookie.split(';')[0]!;
      const body = (await res.json()) as { csrfToken: string };
      return { cookie, token: cookie.split('=')[1]!, csrf: body.csrfToken, setCookie };
    }

    function call(
      s: Session | null,
      method: string,
      path: string,
      body?: unknown,
      extra: Record<string, string> = {},
    ) {
      const headers: Record<string, string> = { ...extra };
      if (s) headers.cookie = s.cookie;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${t.url}/app/api${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    }

    test('signing in sets an HttpOnly, SameSite=Lax cookie scoped to /app, and only its hash is stored', async () => {
      const s = await session(await newUser(acct, 'owner'));
      assert.match(s.setCookie, /HttpOnly/i);
      assert.match(s.setCookie, /SameSite=Lax/i);
      assert.match(s.setCookie, /Path=\/app/);
      const rows = await t.store.db.selectFrom('sessions').select('token_hash').execute();
      assert.ok(rows.some((r) => r.token_hash === sha256Hex(s.token)));
      assert.ok(!rows.some((r) => r.token_hash === s.token), 'the token itself is never stored');
    });

    test('a wrong password or an unknown email is 401 unauthorized', async () => {
      const email = await newUser(acct, 'member');
      assert.equal((await signIn(email, 'not the password')).status, 401);
      assert.equal((await signIn('nobody@example.com')).status, 401);
    });

    test('after five failures an email is throttled with 429 and Retry-After, even with the right password', async () => {
      const email = await newUser(acct, 'member');
      for (let i = 0; i < 5; i++) assert.equal((await signIn(email, `wrong ${i}`)).status, 401);
      const throttled = await signIn(email);
      assert.equal(throttled.status, 429);
      assert.equal(((await throttled.json()) as any).error.type, 'rate_limited');
      assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
      assert.equal(
        (await signIn(await newUser(acct, 'member'))).status,
        200,
        'other emails are not affected',
      );
    });

    test('every app API call needs a session', async () => {
      for (const path of ['/me', '/conversations', '/calls', '/contacts']) {
        const res = await call(null, 'GET', path);
        assert.equal(res.status, 401, path);
      }
    });

    test('changes need the CSRF token, and a cross-site Origin is refused', async () => {
      const s = await session(await newUser(acct, 'owner'));
      const contact = { phone: '+14155550150', name: 'Csrf' };
      assert.equal((await call(s, 'POST', '/contacts', contact)).status, 401, 'no token');
      assert.equal(
        (await call(s, 'POST', '/contacts', contact, { 'x-csrf-token': 'wrong' })).status,
        401,
        'wrong token',
      );
      assert.equal(
        (
          await call(s, 'POST', '/contacts', contact, {
            'x-csrf-token': s.csrf,
            origin: 'https://evil.example',
          })
        ).status,
        401,
        'foreign origin',
      );
      assert.equal(
        (await call(s, 'POST', '/contacts', contact, { 'x-csrf-token': s.csrf })).status,
        201,
      );
    });

    test('members see the inbox but not the dashboard', async () => {
      const member = await session(await newUser(acct, 'member'));
      assert.equal((await call(member, 'GET', '/conversations')).status, 200);
      for (const path of ['/keys', '/numbers', '/webhook-endpoints', '/team', '/opt-outs']) {
        assert.equal((await call(member, 'GET', path)).status, 404, path);
      }
      const owner = await session(await newUser(acct, 'owner'));
      assert.equal((await call(owner, 'GET', '/keys')).status, 200);
    });

    test("a user sees only their own account's conversations", async () => {
      const sent = await other.test.post('/v1/messages', {
        from: other.testNumbers[0],
        to: '+14155550151',
        body: 'private',
      });
      assert.equal(sent.status, 201);
      const s = await session(await newUser(acct, 'owner'));
      const list = (await (await call(s, 'GET', '/conversations')).json()) as any;
      assert.ok(!list.data.some((c: any) => c.id === sent.body.conversationId));
      assert.equal(
        (await call(s, 'GET', `/conversations/${sent.body.conversationId}`)).status,
        404,
      );
    });

    test('signing out ends the session on the server', async () => {
      const s = await session(await newUser(acct, 'member'));
      assert.equal(
        (await call(s, 'DELETE', '/session', undefined, { 'x-csrf-token': s.csrf })).status,
        200,
      );
      assert.equal((await call(s, 'GET', '/me')).status, 401);
    });

    test('the realtime socket refuses a connection without a session', async () => {
      const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`);
      const status = await new Promise<number>((resolve) => {
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => resolve(101));
        socket.on('error', () => resolve(-1));
      });
      socket.terminate();
      assert.equal(status, 401);
    });

    /** An open realtime channel of session `s`, once the server said hello. */
    async function channel(s: Session): Promise<WebSocket> {
      const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`, {
        headers: { cookie: s.cookie },
      });
      await new Promise<void>((resolve) => socket.once('message', () => resolve()));
      return socket;
    }

    /** The close code of `socket`, waited for at most `ms`; null if it stayed open. */
    function closeCode(socket: WebSocket, ms: number): Promise<number | null> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(null), ms);
        socket.once('close', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    }

    test('signing out closes that session’s realtime channels at once (4401), and only them', async () => {
      const email = await newUser(acct, 'member');
      const [leaving, staying] = [await session(email), await session(email)];
      const [gone, kept] = [await channel(leaving), await channel(staying)];
      try {
        const closed = closeCode(gone, 2_000);
        assert.equal(
          (await call(leaving, 'DELETE', '/session', undefined, { 'x-csrf-token': leaving.csrf }))
            .status,
          200,
        );
        assert.equal(await closed, 4401);
        assert.equal(await closeCode(kept, 300), null, 'the other session’s channel stays open');
      } finally {
        gone.terminate();
        kept.terminate();
      }
    });

    test('a session that ends without a signal here (expired, removed elsewhere) closes its channel at the next heartbeat', async () => {
      const s = await session(await newUser(acct, 'member'));
      const socket = await channel(s);
      try {
        const closed = closeCode(socket, 3_000);
        await t.store.write((tx) =>
          tx.db.deleteFrom('sessions').where('token_hash', '=', sha256Hex(s.token)).execute(),
        );
        assert.equal(await closed, 4401);
      } finally {
        socket.terminate();
      }
    });

    test('the realtime hub listens to committed changes only while a softphone is connected', async () => {
      const listening = () => t.store.signals.listenerCount('message.created');
      assert.equal(listening(), 0, 'nobody connected: nothing to relay from the store thread');
      const s = await session(await newUser(acct, 'member'));
      const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`, {
        headers: { cookie: s.cookie },
      });
      const hello = new Promise<void>((resolve) => socket.once('message', () => resolve()));
      await hello;
      assert.equal(listening(), 1);
      const pushed = new Promise<{ type: string }>((resolve) =>
        socket.on('message', (data) => {
          const push = JSON.parse(String(data)) as { type: string };
          if (push.type !== 'heartbeat') resolve(push);
        }),
      );
      const sent = await acct.test.post('/v1/messages', {
        from: acct.testNumbers[0],
        to: '+14155560042',
        body: 'pushed',
      });
      assert.equal(sent.status, 201, sent.text);
      assert.equal((await pushed).type, 'message.created');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.close();
      await closed;
      for (let i = 0; i < 50 && listening() > 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(listening(), 0, 'the last one gone, it stops listening');
    });
  });
}
