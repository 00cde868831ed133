import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { phoneNumbers } from '../support/messaging.ts';
import { assertVapid, startPushService, type PushService } from '../support/push-service.ts';
import { signedInTeammate, type Teammate } from '../support/team.ts';

for (const engine of ENGINES) {
  describe(`notifications by Web Push [${engine}]`, () => {
    let t: TestApp;
    let push: PushService;
    let acct: TestAccount;
    let ann: Teammate;
    let bob: Teammate;
    const phone = phoneNumbers('718');

    before(async () => {
      push = await startPushService();
      t = await startTestApp(engine, {
        pushCa: push.ca,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount('Acme');
      ann = await signedInTeammate(t, acct, 'Ann Lee');
      bob = await signedInTeammate(t, acct, 'Bob Stone');
    });
    after(async () => {
      await t.close();
      await push.close();
    });

    async function inbound(body: string, from = phone()): Promise<string> {
      const res = await acct.test.post('/v1/sandbox/inbound', {
        to: acct.testNumbers[0],
        from,
        body,
      });
      assert.equal(res.status, 201, res.text);
      return (res.body as { conversationId: string }).conversationId;
    }

    test('the VAPID key pair is made once per account and its private half is stored sealed', async () => {
      const first = await ann.json('GET', '/push/key');
      const second = await bob.json('GET', '/push/key');
      assert.equal(second.publicKey, first.publicKey);
      assert.match(first.publicKey, /^[A-Za-z0-9_-]{87}$/);
      const rows = await t.store.db.selectFrom('push_keys').selectAll().execute();
      const row = rows.find((r) => r.account_id === acct.accountId)!;
      assert.match(row.private_key_sealed, /^v1:/);
      assert.equal(t.secrets.open(row.private_key_sealed).length, 43, 'opens to the private key');
    });

    test('an inbound text is pushed, encrypted and VAPID-signed, to a subscribed browser with the thread to open', async () => {
      const { publicKey } = await ann.json('GET', '/push/key');
      const browser = push.subscriber();
      await ann.json('POST', '/push/subscriptions', browser.subscription, 201);
      const id = await inbound('Is the shop open on Sunday?');
      const [request] = await push.waitFor(browser.path, 1);
      assertVapid(request!, push.url, publicKey);
      assert.deepEqual(browser.read(request!), {
        title: (await ann.json('GET', `/conversations/${id}`)).conversation.participants[0].phone,
        body: 'Is the shop open on Sunday?',
        url: `/app/inbox/${id}`,
        tag: id,
      });
      assert.ok(Number(request!.headers.ttl) > 0);
    });

    test('"only mine" pushes texts of conversations assigned to the user, and mentions always', async () => {
      const browser = push.subscriber();
      await bob.json('POST', '/push/subscriptions', browser.subscription, 201);
      await bob.json('POST', '/notification-settings', {
        texts: 'mine',
        calls: false,
        sound: true,
      });
      assert.deepEqual(await bob.json('GET', '/notification-settings'), {
        texts: 'mine',
        calls: false,
        sound: true,
      });
      const from = phone();
      const id = await inbound('Not yours yet', from);
      await ann.json('POST', `/conversations/${id}/assignee`, { assigneeId: bob.id });
      const [assigned] = await push.waitFor(browser.path, 1);
      assert.equal(browser.read(assigned!).title, 'Ann Lee assigned you a conversation');
      await inbound('Now it is yours', from);
      const pushes = await push.waitFor(browser.path, 2);
      assert.equal(browser.read(pushes[1]!).body, 'Now it is yours');
      await ann.json('POST', `/conversations/${id}/notes`, { body: 'over to you @Bob' }, 201);
      const withNote = await push.waitFor(browser.path, 3);
      assert.equal(browser.read(withNote[2]!).title, 'Ann Lee mentioned you');
      const unrelated = await inbound('Nobody owns this one');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(push.at(browser.path).length, 3, `no push for ${unrelated}`);
      await bob.json('POST', '/notification-settings', { texts: 'all', calls: true, sound: false });
    });

    test('a subscription the push service says is gone (410) is forgotten', async () => {
      const browser = push.subscriber();
      push.on(browser.path, { status: 410 });
      await ann.json('POST', '/push/subscriptions', browser.subscription, 201);
      await inbound('Anyone there?');
      await push.waitFor(browser.path, 1);
      const gone = async () =>
        (await t.store.db.selectFrom('push_subscriptions').selectAll().execute()).every(
          (r) => r.endpoint !== browser.subscription.endpoint,
        );
      for (let i = 0; i < 50 && !(await gone()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(await gone());
    });

    test('a subscription to a non-https endpoint or with bad keys is a 422 and stores nothing', async () => {
      const bad = [
        { endpoint: 'http://127.0.0.1:9/push', keys: { p256dh: 'abc', auth: 'abc' } },
        { endpoint: `${push.url}/push/x`, keys: { p256dh: 'not base64!', auth: 'abc' } },
      ];
      for (const body of bad) {
        const answer = await ann.json('POST', '/push/subscriptions', body, 422);
        assert.equal(answer.error.type, 'validation_error');
      }
      const rows = await t.store.db.selectFrom('push_subscriptions').selectAll().execute();
      assert.ok(
        !rows.some((r) => r.endpoint.endsWith('/push/x') || r.endpoint.startsWith('http:')),
      );
      const settings = await ann.json('POST', '/notification-settings', { texts: 'some' }, 422);
      assert.equal(settings.error.type, 'validation_error');
    });
  });
}
