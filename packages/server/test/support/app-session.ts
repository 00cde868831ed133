// A softphone session over real HTTP and its realtime channel, for the app API suites.
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createUser } from '../../src/commands/create-user.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import type { TestApp } from './app.ts';

export interface AppSession {
  cookie: string;
  csrf: string;
  /** A call to `/app/api{path}` (test mode) with the cookie and CSRF token. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /** The realtime channel, open once the server said hello; pushes are collected in order. */
  channel(): Promise<{ socket: WebSocket; pushes: { type: string; [k: string]: unknown }[] }>;
}

let counter = 0;

/** A new login on the account, signed in. */
export async function appSession(
  t: TestApp,
  accountId: string,
  role: 'owner' | 'member' = 'member',
): Promise<AppSession> {
  const email = `app${++counter}.${Date.now()}@example.com`;
  const password = 'a long enough password';
  const passwordHash = await hashPassword(password);
  await t.store.write((tx) =>
    createUser(tx, { accountId, email, role, passwordHash }, { clock: { now: Date.now } }),
  );
  const res = await fetch(`${t.url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = ((await res.json()) as { csrfToken: string }).csrfToken;
  return {
    cookie,
    csrf,
    call(method, path, body) {
      const headers: Record<string, string> = { cookie, 'x-csrf-token': csrf };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${t.url}/app/api${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
    async channel() {
      const socket = new WebSocket(`${t.url.replace('http', 'ws')}/app/ws?mode=test`, {
        headers: { cookie },
      });
      const pushes: { type: string }[] = [];
      await new Promise((resolve, reject) => {
        socket.once('error', reject);
        socket.on('message', (data) => {
          const push = JSON.parse(String(data)) as { type: string };
          pushes.push(push);
          if (push.type === 'hello') resolve(undefined);
        });
      });
      return { socket, pushes };
    },
  };
}

/** Waits (bounded) until `check` returns a value. */
export async function until<T>(check: () => T | undefined, what: string, ms = 3_000): Promise<T> {
  const end = Date.now() + ms;
  for (let i = 0; i < 300; i++) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
