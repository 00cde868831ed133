import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import webpush from 'web-push';
import { webhookDispatcher } from '../../src/delivery/guarded-dispatcher.ts';
import { sendPush } from '../../src/delivery/send-push.ts';
import { savePushSubscription } from '../../src/store/repos/push.ts';
import { startTestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { startPushService, type PushService } from '../support/push-service.ts';
import { signedInTeammate } from '../support/team.ts';

// A push goes to a URL a browser gave, so it is held to the rules of a webhook URL on
// every connection: no private address unless SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE, and a
// bound on its time.
const keys = webpush.generateVAPIDKeys();
const vapid = { subject: 'mailto:ops@example.com', ...keys };

describe('Web Push through the guarded dispatcher', () => {
  let push: PushService;
  before(async () => (push = await startPushService()));
  after(() => push.close());

  test('a push to a private address is refused before connecting unless private addresses are allowed', async () => {
    const browser = push.subscriber();
    const target = { endpoint: browser.subscription.endpoint, ...browser.subscription.keys };
    const guarded = webhookDispatcher({ allowPrivate: false, ca: push.ca });
    const open = webhookDispatcher({ allowPrivate: true, ca: push.ca });
    try {
      const before = push.connections();
      const refused = await sendPush({ target, payload: '{}', vapid, dispatcher: guarded });
      assert.equal(refused.error, 'ssrf');
      assert.equal(push.connections(), before, 'no connection was opened');
      assert.equal(push.at(browser.path).length, 0);

      const sent = await sendPush({ target, payload: '{"title":"Hi"}', vapid, dispatcher: open });
      assert.equal(sent.status, 201);
      const [request] = await push.waitFor(browser.path, 1);
      assert.deepEqual(browser.read(request!), { title: 'Hi' });
    } finally {
      await guarded.close();
      await open.close();
    }
  });

  test('a push service that does not answer ends the push at its time bound', async () => {
    const browser = push.subscriber();
    push.on(browser.path, { status: 201, delayMs: 5000 });
    const target = { endpoint: browser.subscription.endpoint, ...browser.subscription.keys };
    const dispatcher = webhookDispatcher({ allowPrivate: true, ca: push.ca });
    try {
      const started = performance.now();
      const result = await sendPush({ target, payload: '{}', vapid, dispatcher, timeoutMs: 300 });
      assert.equal(result.error, 'timeout');
      assert.ok(performance.now() - started < 2000, 'ended near its bound, not at the answer');
    } finally {
      await dispatcher.destroy();
    }
  });
});

for (const engine of ENGINES) {
  describe(`notifications with private addresses not allowed [${engine}]`, () => {
    test('the notifier pushes nothing to a subscription on a private address, and keeps it', async () => {
      const push = await startPushService();
      const t = await startTestApp(engine, { pushCa: push.ca });
      try {
        const acct = await t.newAccount('Acme');
        const ann = await signedInTeammate(t, acct, 'Ann Lee');
        await ann.json('GET', '/push/key');
        const browser = push.subscriber();
        // Subscribed while private addresses were allowed: the API now refuses such a URL.
        await t.store.write(async (tx) => {
          await savePushSubscription(tx.db, {
            endpoint: browser.subscription.endpoint,
            user_id: ann.id,
            account_id: acct.accountId,
            ...browser.subscription.keys,
            created_at: Date.now(),
          });
          tx.publish('push.subscribed', { accountId: acct.accountId });
        });
        await sleep(100);
        const res = await acct.test.post('/v1/sandbox/inbound', {
          to: acct.testNumbers[0],
          from: '+12125550123',
          body: 'Anyone there?',
        });
        assert.equal(res.status, 201, res.text);
        // The claim is recorded once the notifier is about to push: it tried, and was refused.
        const claims = () => t.store.db.selectFrom('push_claims').select('event_key').execute();
        for (let i = 0; i < 100 && (await claims()).length === 0; i++) await sleep(20);
        assert.match((await claims())[0]?.event_key ?? '', /^text:/, 'the notifier tried');
        await sleep(300);
        assert.equal(push.connections(), 0, 'no connection to the private address');
        const rows = await t.store.db.selectFrom('push_subscriptions').selectAll().execute();
        assert.ok(
          rows.some((r) => r.endpoint === browser.subscription.endpoint),
          'still kept',
        );
      } finally {
        await t.close();
        await push.close();
      }
    });
  });
}
