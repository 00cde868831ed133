import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createUser } from '../../src/commands/create-user.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import type { TestAccount, TestApp } from './app.ts';

const PASSWORD = 'a long enough password';
let counter = 0;

/** A signed-in teammate of a test account, calling the softphone's API with their cookie. */
export interface Teammate {
  id: string;
  name: string;
  cookie: string;
  csrf: string;
  /** A call to `/app/api…` as this teammate; changes carry the CSRF token. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /** The JSON of a call that must answer `status`. */
  json<T = any>(method: string, path: string, body?: unknown, status?: number): Promise<T>;
}

/** Makes a user of `account` named `name` and signs them in. */
export async function signedInTeammate(
  t: TestApp,
  account: TestAccount,
  name: string,
): Promise<Teammate> {
  const email = `${name.toLowerCase().replace(/\s+/g, '.')}${++counter}@example.com`;
  const passwordHash = await hashPassword(PASSWORD);
  const user = await t.store.write((tx) =>
    createUser(
      tx,
      { accountId: account.accountId, email, name, role: 'member', passwordHash },
      { clock: { now: Date.now } },
    ),
  );
  const res = await fetch(`${t.url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assert.equal(res.status, 200);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${t.url}/app/api${path}`, {
      method,
      headers: {
        cookie,
        'x-csrf-token': csrfToken,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    id: user.id,
    name,
    cookie,
    csrf: csrfToken,
    call,
    async json(method, path, body, status = 200) {
      const res = await call(method, path, body);
      const text = await res.text();
      assert.equal(res.status, status, text);
      return JSON.parse(text);
    },
  };
}

/** A realtime channel of a teammate, keeping every push it receives. */
export interface Channel {
  socket: WebSocket;
  pushes: any[];
  /** The first push (already received or to come) matching `match`, within `ms`. */
  next(match: (push: any) => boolean, ms?: number): Promise<any>;
  close(): void;
}

/** Opens a teammate's realtime channel in test mode and waits for its hello. */
export async function openChannel(t: Pick<TestApp, 'url'>, mate: Teammate): Promise<Channel> {
  const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`, {
    headers: { cookie: mate.cookie },
  });
  const pushes: any[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    pushes.push(JSON.parse(String(data)));
    for (const wake of waiters) wake();
  });
  const channel: Channel = {
    socket,
    pushes,
    next(match, ms = 3000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = pushes.find(match);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching push within ${ms} ms: ${JSON.stringify(pushes)}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close: () => socket.close(),
  };
  await channel.next((p) => p.type === 'hello');
  return channel;
}
