// A real Switchboard serving the built softphone, with an account, an owner and a member, for
// the browser suites. SQLite only: the storage suites already cover both engines.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { createUser } from '../../../server/src/commands/create-user.ts';
import { WEB_DIST } from '../../../server/src/http/web-app.ts';
import { hashPassword } from '../../../server/src/lib/secrets.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../../server/test/support/app.ts';

/** A softphone login made for a test. */
export interface Login {
  id: string;
  email: string;
  name: string;
  password: string;
  role: 'owner' | 'member';
}

/** The server, one account with its keys and numbers, and its two logins. */
export interface Softphone {
  t: TestApp;
  acct: TestAccount;
  owner: Login;
  member: Login;
}

let counter = 0;

/** Creates a login on an account, as `switchboard users create` or the dashboard would. */
export async function createLogin(
  t: TestApp,
  accountId: string,
  role: 'owner' | 'member',
  name: string,
): Promise<Login> {
  counter += 1;
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}.${counter}.${randomBytes(3).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const passwordHash = await hashPassword(password);
  const user = await t.store.write((tx) =>
    createUser(
      tx,
      { accountId, email, name, role, passwordHash },
      { clock: { now: () => Date.now() } },
    ),
  );
  return { id: user.id, email: user.email, name: user.name, role, password };
}

/**
 * Starts the server over a fresh SQLite database. Webhooks may target 127.0.0.1 (the tests'
 * receiver) and the sandbox carrier moves queued → sent → delivered in 150 ms steps, slow
 * enough to see each status and fast enough to keep the suite short.
 */
export async function startSoftphone(
  options: { pushCa?: string; env?: Record<string, string> } = {},
): Promise<Softphone> {
  if (!existsSync(`${WEB_DIST}index.html`)) {
    throw new Error('The softphone is not built: run `npm run build` first (npm test does).');
  }
  const t = await startTestApp('sqlite', {
    env: {
      SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1',
      SWITCHBOARD_SANDBOX_DELAY_MS: '150',
      ...options.env,
    },
    ...(options.pushCa ? { pushCa: options.pushCa } : {}),
  });
  const acct = await t.newAccount('Acme Plumbing');
  const owner = await createLogin(t, acct.accountId, 'owner', 'Olivia Owner');
  const member = await createLogin(t, acct.accountId, 'member', 'Max Member');
  return { t, acct, owner, member };
}

/** Resolves once the page's softphone has registered (a 200 to its REGISTER over the WebSocket). */
export function registered(page: Page): Promise<void> {
  return new Promise((resolve) =>
    page.on('websocket', (socket) =>
      socket.on('framereceived', (frame) => {
        if (/^SIP\/2\.0 200 [^]*^CSeq: *\d+ REGISTER/m.test(String(frame.payload))) resolve();
      }),
    ),
  );
}
