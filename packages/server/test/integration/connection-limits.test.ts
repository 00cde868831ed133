import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createUser } from '../../src/commands/create-user.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { rawRequest } from '../support/raw-http.ts';
import {
  closesWithin,
  exchange,
  openConnection,
  parseResponse,
  rawGet,
  type ParsedResponse,
  type RawConnection,
} from '../support/raw-socket.ts';

/** Small timeouts, so that a test sees them pass; every wait below is bounded far above them. */
const TIMEOUTS = {
  SWITCHBOARD_HEADERS_TIMEOUT_MS: '300',
  SWITCHBOARD_REQUEST_TIMEOUT_MS: '600',
  SWITCHBOARD_KEEP_ALIVE_TIMEOUT_MS: '300',
};
/** How long a test waits for the server to close a connection: "never" fails after it. */
const CLOSE_WITHIN_MS = 10_000;

/** The value of `promise`, or `fallback` once `ms` have passed first. */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts the answer to a request that took too long: 408 in the API's error shape, closing. */
function assertTimedOut(response: ParsedResponse, context: string): void {
  assert.equal(response.status, 408, context);
  assert.equal(response.headers.get('connection'), 'close', context);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, context);
  assert.match(response.headers.get('request-id') ?? '', /^req_/, context);
  assert.equal(response.body?.error?.type, 'invalid_request', context);
  assert.equal(typeof response.body?.error?.message, 'string', context);
}

/** Signs a new softphone user in over a connection of its own; returns the session cookie. */
async function signedInCookie(t: TestApp): Promise<string> {
  const account = await t.newAccount();
  const email = `user-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const passwordHash = await hashPassword(password);
  await t.store.write((tx) =>
    createUser(
      tx,
      { accountId: account.accountId, email, role: 'owner', passwordHash },
      { clock: { now: Date.now } },
    ),
  );
  const res = await rawRequest(t.url, {
    method: 'POST',
    path: '/app/api/session',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200, res.text);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** Opens the realtime channel with `cookie` and waits (at most 10 s) for its hello. */
async function openChannel(t: TestApp, cookie: string): Promise<WebSocket> {
  const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`, {
    headers: { cookie },
  });
  const hello = await within(
    new Promise<boolean>((resolve) => {
      socket.once('message', () => resolve(true));
      socket.once('close', () => resolve(false));
    }),
    10_000,
    false,
  );
  assert.ok(hello, 'the channel opens and says hello');
  return socket;
}

for (const engine of ENGINES) {
  describe(`connection timeouts [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { background: false, env: TIMEOUTS });
    });
    after(() => t.close());

    test('a request that sends its headers and only part of its body is answered 408 and closed', async () => {
      const connection = await openConnection(t.url);
      connection.socket.write(
        [
          'POST /app/api/session HTTP/1.1',
          'Host: localhost',
          'Content-Type: application/json',
          'Content-Length: 100',
          '',
          '{"email":',
        ].join('\r\n'),
      );
      assert.ok(await closesWithin(connection, CLOSE_WITHIN_MS), 'the server closed it');
      assertTimedOut(parseResponse(connection.received()), connection.received());
    });

    test('headers sent slowly are answered 408 and closed', async () => {
      const connection = await openConnection(t.url);
      connection.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      // A byte every 50 ms, 200 at most (10 s), until the server answers or closes.
      for (let i = 0; i < 200 && !connection.received() && !connection.isClosed(); i++) {
        connection.socket.write('x');
        await sleep(50);
      }
      assert.ok(await closesWithin(connection, CLOSE_WITHIN_MS), 'the server closed it');
      assertTimedOut(parseResponse(connection.received()), connection.received());
    });

    test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
      const connection = await openConnection(t.url);
      const response = await exchange(connection, rawGet('/healthz'));
      assert.equal(response?.status, 200);
      assert.notEqual(response?.headers.get('connection'), 'close', 'kept alive at first');
      assert.ok(await closesWithin(connection, CLOSE_WITHIN_MS), 'the server closed it');
    });

    test('a realtime WebSocket stays open past the request and keep-alive timeouts', async () => {
      const socket = await openChannel(t, await signedInCookie(t));
      try {
        let closed = false;
        socket.once('close', () => (closed = true));
        // Idle for several times every timeout (the heartbeat is 25 s away).
        await sleep(3_000);
        assert.equal(closed, false, 'still open');
        const pong = new Promise<boolean>((resolve) => socket.once('pong', () => resolve(true)));
        socket.ping();
        assert.ok(await within(pong, 10_000, false), 'and still answers');
      } finally {
        socket.terminate();
      }
    });
  });

  describe(`connections per client address [${engine}]`, () => {
    const CAP = 3;
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS: String(CAP) },
      });
    });
    after(() => t.close());

    /** Opens connections until one is served (at most 50, 20 ms apart): the server counts a close when it sees it. */
    async function servedConnection(): Promise<RawConnection | null> {
      for (let i = 0; i < 50; i++) {
        const connection = await openConnection(t.url);
        if ((await exchange(connection, rawGet('/healthz')))?.status === 200) return connection;
        connection.socket.destroy();
        await sleep(20);
      }
      return null;
    }

    /** Asserts that a new connection is closed at once, unanswered. */
    async function assertRefused(): Promise<void> {
      const refused = await openConnection(t.url);
      assert.equal(await exchange(refused, rawGet('/healthz')), null, 'not served');
      assert.ok(await closesWithin(refused, CLOSE_WITHIN_MS), 'closed by the server');
    }

    test('a connection beyond the cap is refused while the others are open, and accepted once one closes', async () => {
      const held: RawConnection[] = [];
      try {
        for (let i = 0; i < CAP; i++) {
          const connection = await servedConnection();
          assert.ok(connection, `connection ${i + 1} of ${CAP} is served`);
          held.push(connection);
        }
        await assertRefused();
        for (const connection of held) {
          assert.equal((await exchange(connection, rawGet('/healthz')))?.status, 200);
        }
        held.shift()!.socket.end();
        const again = await servedConnection();
        assert.ok(again, 'a connection is served again');
        held.push(again);
      } finally {
        for (const connection of held) connection.socket.destroy();
      }
    });

    test('a realtime WebSocket counts toward the cap', async () => {
      const socket = await openChannel(t, await signedInCookie(t));
      const held: RawConnection[] = [];
      try {
        for (let i = 0; i < CAP - 1; i++) {
          const connection = await servedConnection();
          assert.ok(connection, `connection ${i + 1} beside the channel is served`);
          held.push(connection);
        }
        await assertRefused();
      } finally {
        socket.terminate();
        for (const connection of held) connection.socket.destroy();
      }
    });
  });
}
