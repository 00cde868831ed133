import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGuardedDispatcher } from '../../src/delivery/guarded-dispatcher.ts';
import { WebhookWorker } from '../../src/delivery/webhook-worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { createEndpoint, deliveriesOf } from '../support/webhooks.ts';

/** URLs whose host is, or resolves to, an address no webhook may reach, and the kind named. */
const FORBIDDEN: [string, RegExp][] = [
  ['https://127.0.0.1/', /loopback/],
  ['https://127.1.2.3:8443/hook', /loopback/],
  ['https://10.0.0.1/', /private/],
  ['https://172.16.5.4/', /private/],
  ['https://192.168.1.10/', /private/],
  ['https://169.254.169.254/latest/meta-data/', /metadata/],
  ['https://169.254.10.10/', /link-local/],
  ['https://[::1]/', /loopback/],
  ['https://[::ffff:127.0.0.1]/', /loopback/],
  ['https://[::ffff:a9fe:a9fe]/', /metadata/],
  ['https://[fd00::1]/', /private/],
  ['https://[fe80::1]/', /link-local/],
  ['https://0.0.0.0/', /unspecified/],
  // A host name is resolved and judged by every address it has.
  ['https://localhost/', /loopback/],
];

for (const engine of ENGINES) {
  describe(`webhook URL checks at creation, private addresses not allowed [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
    });
    after(() => t.close());

    for (const [url, kind] of FORBIDDEN) {
      test(`${url} is 422 param url (${kind.source})`, async () => {
        const res = await acct.test.post('/v1/webhook_endpoints', {
          url,
          events: ['contact.created'],
        });
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, 'url');
        assert.match(res.body.error.message, kind);
      });
    }

    test('moving an endpoint to a private address is 422 param url and leaves it unchanged', async () => {
      const endpoint = await createEndpoint(acct.test, 'https://1.1.1.1/hook', ['contact.created']);
      for (const url of ['https://127.0.0.1/hook', 'https://localhost/hook']) {
        const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}`, { url });
        assert.equal(res.status, 422, url);
        assert.equal(res.body.error.param, 'url');
      }
      const fetched = await acct.test.get(`/v1/webhook_endpoints/${endpoint.id}`);
      assert.equal(fetched.body.url, 'https://1.1.1.1/hook');
    });
  });

  describe(`webhook URL checks with SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=1 [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
    });
    after(() => t.close());

    test('loopback, private and plain-http URLs are accepted', async () => {
      for (const url of ['http://127.0.0.1:9/hook', 'https://10.0.0.1/', 'http://localhost:9/']) {
        const res = await acct.test.post('/v1/webhook_endpoints', {
          url,
          events: ['contact.created'],
        });
        assert.equal(res.status, 201, `${url}: ${res.text}`);
      }
    });

    test('cloud metadata addresses stay refused even then', async () => {
      for (const url of ['http://169.254.169.254/', 'https://[fd00:ec2::254]/']) {
        const res = await acct.test.post('/v1/webhook_endpoints', {
          url,
          events: ['contact.created'],
        });
        assert.equal(res.status, 422, url);
        assert.equal(res.body.error.param, 'url');
        assert.match(res.body.error.message, /metadata/);
      }
    });
  });

  describe(`webhook addresses checked again at delivery [${engine}]`, () => {
    let receiver: Receiver;
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      receiver = await startReceiver();
      // The endpoints are created while private addresses are allowed; the API process
      // runs no worker, so the only deliveries are the ones each test makes below.
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** A worker over the app's store, with its own guard setting and a clock `skewMs` ahead. */
    function worker(allowPrivate: boolean, skewMs = 0, requireHttps = false) {
      const dispatcher = createGuardedDispatcher({ allowPrivate, connectTimeoutMs: 2_000 });
      const w = new WebhookWorker({
        store: t.store,
        clock: { now: () => Date.now() + skewMs },
        logger: createLogger('silent'),
        secrets: t.secrets,
        dispatcher,
        timeoutMs: 2_000,
        requireHttps,
      });
      return { w, close: () => dispatcher.close() };
    }

    test('a loopback endpoint (by IP or by name) is refused with an ssrf error and the receiver sees no connection', async () => {
      const byIp = await createEndpoint(acct.test, `${receiver.url}/by-ip`, ['contact.created']);
      const byName = await createEndpoint(acct.test, `http://localhost:${receiver.port}/by-name`, [
        'contact.created',
      ]);
      const res = await acct.test.post('/v1/contacts', { phone: '+14155550100' });
      assert.equal(res.status, 201);

      const strict = worker(false);
      try {
        assert.equal(await strict.w.runOnce(), 2, 'both deliveries attempted');
      } finally {
        await strict.close();
      }
      assert.equal(receiver.connections(), 0, 'no TCP connection reached the receiver');
      assert.equal(receiver.requests.length, 0);
      for (const endpoint of [byIp, byName]) {
        const [delivery] = await deliveriesOf(acct.test, endpoint.id);
        assert.equal(delivery.attempts.length, 1);
        assert.equal(delivery.attempts[0].statusCode, null);
        assert.match(delivery.attempts[0].error, /^ssrf: .*loopback/);
        assert.equal(delivery.status, 'pending', 'retried later, in case DNS changes');
      }

      // The same deliveries, once due, go through when private addresses are allowed:
      // the guard, not the receiver, stopped them.
      const lenient = worker(true, 60_000);
      try {
        await lenient.w.runOnce();
      } finally {
        await lenient.close();
      }
      assert.equal(receiver.at('/by-ip').length, 1);
      assert.equal(JSON.parse(receiver.at('/by-ip')[0]!.text).data.id, res.body.id);
    });

    test('an http:// endpoint saved while allowed is not delivered in the clear once https is required', async () => {
      const own = await t.newAccount('Plain HTTP');
      const endpoint = await createEndpoint(own.test, `${receiver.url}/plain`, ['contact.created']);
      const res = await own.test.post('/v1/contacts', { phone: '+14155550101' });
      assert.equal(res.status, 201);
      const strict = worker(true, 0, true);
      try {
        await strict.w.runOnce();
      } finally {
        await strict.close();
      }
      assert.equal(receiver.at('/plain').length, 0, 'nothing sent over plain HTTP');
      const [delivery] = await deliveriesOf(own.test, endpoint.id);
      assert.match(delivery.attempts[0].error, /https/);
    });
  });
}
