// The sandbox's inbound MMS take the carriers' path into the media store: each item fetched
// through the SSRF guard and checked (type, 5 MB) before the text arrives; kept ones served
// from the service's own signed links with their bytes, the others listed as not kept, with
// why. The media host is a local server, allowed by SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { eventsOf } from '../support/messaging.ts';
import { PNG, startMediaHost, type MediaHost } from '../support/media-host.ts';
import { freePort } from '../support/processes.ts';

interface Item {
  url: string;
  contentType: string;
  size: number | null;
  kept?: boolean;
  reason?: string;
}

for (const engine of ENGINES) {
  describe(`inbound MMS through the sandbox (${engine})`, () => {
    let app: TestApp;
    let account: TestAccount;
    let host: MediaHost;
    let ours: string;
    before(async () => {
      host = await startMediaHost();
      const port = await freePort();
      app = await startTestApp(engine, {
        port,
        env: {
          SWITCHBOARD_PUBLIC_URL: `http://127.0.0.1:${port}`,
          SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1',
        },
      });
      account = await app.newAccount('Sandbox media');
      ours = account.testNumbers[0]!;
    });
    after(async () => {
      await app?.close();
      host?.server.close();
    });

    test('a sandbox inbound MMS is kept in the media store and served from /v1/media with its bytes, without a key', async () => {
      const res = await account.test.post('/v1/sandbox/inbound', {
        from: '+14155550123',
        to: ours,
        body: 'A picture',
        mediaUrls: [`${host.url}/small.png`],
      });
      assert.equal(res.status, 201, res.text);
      const [item] = res.body.media as Item[];
      assert.equal(item!.contentType, 'image/png');
      assert.equal(item!.size, PNG.length);
      assert.equal(item!.kept, undefined);
      assert.match(item!.url, /\/v1\/media\/med_[^?]+\?token=/);
      const served = await fetch(item!.url);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
      // Without a key, through the client that holds every answer to the API description.
      const link = new URL(item!.url);
      const keyless = new ApiClient(app.url, null);
      assert.equal((await keyless.get(link.pathname + link.search)).status, 200);
      assert.equal((await keyless.get(`${link.pathname}?token=altered`)).status, 404);
      const [event] = (
        await eventsOf(app.store.db, account.accountId, 'test', 'message.received')
      ).filter((e) => e.data.id === res.body.id);
      assert.deepEqual(event!.data.media, res.body.media);
    });

    test('items too large, of a refused type or not fetched are listed as not kept with why, and the text still arrives', async () => {
      const before = await app.store.db.selectFrom('media').select('id').execute();
      const res = await account.test.post('/v1/sandbox/inbound', {
        from: '+14155550124',
        to: ours,
        body: 'Nothing kept',
        mediaUrls: [`${host.url}/big.jpg`, `${host.url}/page.html`, `${host.url}/missing.png`],
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.body, 'Nothing kept');
      const media = res.body.media as Item[];
      assert.deepEqual(
        media.map((m) => [m.url, m.kept]),
        [
          [`${host.url}/big.jpg`, false],
          [`${host.url}/page.html`, false],
          [`${host.url}/missing.png`, false],
        ],
      );
      assert.match(media[0]!.reason!, /5 MB/);
      assert.match(media[1]!.reason!, /text\/html/);
      assert.match(media[2]!.reason!, /404/);
      const afterwards = await app.store.db.selectFrom('media').select('id').execute();
      assert.equal(afterwards.length, before.length);
    });

    test('a sandbox inbound MMS to a number not on the account is 422 and keeps no media', async () => {
      const before = await app.store.db.selectFrom('media').select('id').execute();
      const res = await account.test.post('/v1/sandbox/inbound', {
        from: '+14155550125',
        to: '+15005550999',
        mediaUrls: [`${host.url}/small.png`],
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.param, 'to');
      const afterwards = await app.store.db.selectFrom('media').select('id').execute();
      assert.equal(afterwards.length, before.length);
    });
  });
}

describe('sandbox media URLs without the private-address allowance', () => {
  test('a plain http:// media URL is 422 naming the item, and nothing is fetched', async () => {
    const host = await startMediaHost();
    const app = await startTestApp('sqlite');
    try {
      const account = await app.newAccount('Sandbox media, public only');
      const res = await account.test.post('/v1/sandbox/inbound', {
        from: '+14155550126',
        to: account.testNumbers[0]!,
        mediaUrls: [`${host.url}/small.png`],
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.param, 'mediaUrls[0]');
    } finally {
      await app.close();
      host.server.close();
    }
  });
});
