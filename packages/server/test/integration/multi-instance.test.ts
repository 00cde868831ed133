import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { buildApp } from '../../src/app.ts';
import { createUser } from '../../src/commands/create-user.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { localChanges } from '../../src/commands/changes.ts';
import { webhookDeps } from '../../src/delivery/webhook-deps.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

// Several instances share one PostgreSQL database. A change accepted by one must
// reach the softphones connected to another at once: committed signals travel
// between processes with LISTEN/NOTIFY. (SQLite is one process by design.)
const enabled = ENGINES.includes('postgres');

let a: TestApp;
let acct: TestAccount;
let storeB: Store;
let urlB: string;
let closeB: () => Promise<void>;

before(async () => {
  if (!enabled) return;
  a = await startTestApp('postgres');
  acct = await a.newAccount();
  storeB = await openStore(a.database.options);
  const configB = { ...a.config, roles: ['api' as const, 'realtime' as const] };
  const clockB = { now: () => Date.now() };
  const secretsB = createSecretBox(randomBytes(32));
  const appB = await buildApp({
    config: configB,
    store: storeB,
    changes: localChanges(
      storeB,
      webhookDeps({ clock: clockB, secrets: secretsB, config: configB }),
    ),
    clock: clockB,
    secrets: secretsB,
    logger: createLogger('silent'),
  });
  await appB.listen({ port: 0, host: '127.0.0.1' });
  const address = appB.server.address();
  urlB = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  closeB = async () => {
    await appB.close();
    await storeB.close();
  };
});

after(async () => {
  if (!enabled) return;
  await closeB();
  await a.close();
});

test(
  'a message sent through one instance is pushed to a softphone connected to another',
  { skip: !enabled },
  async () => {
    const passwordHash = await hashPassword('correct horse battery');
    await storeB.write((tx) =>
      createUser(
        tx,
        { accountId: acct.accountId, email: 'ops@example.com', role: 'owner', passwordHash },
        { clock: { now: () => Date.now() } },
      ),
    );
    const signIn = await fetch(`${urlB}/app/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password: 'correct horse battery' }),
    });
    assert.equal(signIn.status, 200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;

    const pushes: any[] = [];
    const socket = new WebSocket(`${urlB.replace('http', 'ws')}/app/ws?mode=test`, {
      headers: { cookie },
    });
    socket.on('message', (data) => pushes.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    try {
      const sent = await acct.test.post('/v1/messages', {
        from: acct.testNumbers[0],
        to: '+14155550170',
        body: 'Across instances',
      });
      assert.equal(sent.status, 201);
      const pushed = () =>
        pushes.find((p) => p.type === 'message.created' && p.message?.id === sent.body.id);
      for (let i = 0; i < 100 && !pushed(); i++) await sleep(50);
      assert.ok(pushed(), 'the other instance pushed the new message');
      assert.equal(pushed().message.body, 'Across instances');
      for (let i = 0; i < 100; i++) {
        if (pushes.some((p) => p.type === 'message.updated' && p.message?.status === 'delivered')) {
          break;
        }
        await sleep(50);
      }
      assert.ok(
        pushes.some(
          (p) =>
            p.type === 'message.updated' &&
            p.message?.id === sent.body.id &&
            p.message?.status === 'delivered',
        ),
        'status changes made by the first instance reach the second',
      );
    } finally {
      socket.close();
    }
  },
);
