import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { rawRequest } from '../support/raw-http.ts';
import { createEndpoint, WEBHOOK_SECRET } from '../support/webhooks.ts';

// Public IP literals: accepted without SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE and without DNS.
// The app of the first suite runs no worker, so nothing is ever sent to them.
const PUBLIC_URL = 'https://1.1.1.1/hooks/switchboard';
const OTHER_PUBLIC_URL = 'https://8.8.8.8/other';

for (const engine of ENGINES) {
  describe(`webhook endpoints API [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
    });
    after(() => t.close());

    test('POST /v1/webhook_endpoints answers 201 with a whe_ id and a whsec_ secret of 32 base64 bytes', async () => {
      const res = await acct.test.post('/v1/webhook_endpoints', {
        url: PUBLIC_URL,
        events: ['message.received', 'contact.created'],
      });
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.id, /^whe_[0-9A-Za-z]{22}$/);
      assert.equal(res.body.object, 'webhook_endpoint');
      assert.equal(res.body.url, PUBLIC_URL);
      assert.deepEqual(res.body.events, ['message.received', 'contact.created']);
      assert.equal(res.body.enabled, true);
      assert.equal(res.body.disabledReason, null);
      assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(res.body.secret, WEBHOOK_SECRET);
      assert.equal(Buffer.from(res.body.secret.slice('whsec_'.length), 'base64').length, 32);
    });

    test('an event type named twice is subscribed once', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL, [
        'contact.created',
        'call.missed',
        'contact.created',
      ]);
      assert.deepEqual(created.events, ['contact.created', 'call.missed']);
    });

    test('every endpoint gets its own secret', async () => {
      const a = await createEndpoint(acct.test, PUBLIC_URL);
      const b = await createEndpoint(acct.test, PUBLIC_URL);
      assert.notEqual(a.secret, b.secret);
    });

    test('without an API key the endpoint cannot be created: 401', async () => {
      const res = await t
        .client(null)
        .post('/v1/webhook_endpoints', { url: PUBLIC_URL, events: ['contact.created'] });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.type, 'unauthorized');
    });

    test('a missing url is 422 validation_error with param url', async () => {
      const res = await acct.test.post('/v1/webhook_endpoints', { events: ['contact.created'] });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.type, 'validation_error');
      assert.equal(res.body.error.param, 'url');
    });

    test('a non-https url is 422 param url when private endpoints are not allowed', async () => {
      for (const url of ['http://1.1.1.1/hook', 'ftp://1.1.1.1/hook', 'not a url']) {
        const res = await acct.test.post('/v1/webhook_endpoints', {
          url,
          events: ['contact.created'],
        });
        assert.equal(res.status, 422, url);
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, 'url', url);
      }
    });

    test('a url with credentials in it is 422 param url', async () => {
      const res = await acct.test.post('/v1/webhook_endpoints', {
        url: 'https://user:pass@1.1.1.1/hook',
        events: ['contact.created'],
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'url');
    });

    test('a url with spaces around it, or a tab or line break in it, is 422 param url, not stored with them', async () => {
      for (const url of [
        ` ${PUBLIC_URL}`,
        `${PUBLIC_URL} `,
        `${PUBLIC_URL}\n`,
        PUBLIC_URL.replace('hooks', 'ho\toks'),
      ]) {
        const res = await acct.test.post('/v1/webhook_endpoints', {
          url,
          events: ['contact.created'],
        });
        assert.equal(res.status, 422, JSON.stringify(url));
        assert.equal(res.body.error.param, 'url');
      }
    });

    test('missing or empty events is 422 param events', async () => {
      for (const body of [{ url: PUBLIC_URL }, { url: PUBLIC_URL, events: [] }]) {
        const res = await acct.test.post('/v1/webhook_endpoints', body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, 'events');
      }
    });

    test('an unknown event type is 422 naming its index (events[0], events[1])', async () => {
      const first = await acct.test.post('/v1/webhook_endpoints', {
        url: PUBLIC_URL,
        events: ['message.sent'],
      });
      assert.equal(first.status, 422);
      assert.equal(first.body.error.type, 'validation_error');
      assert.equal(first.body.error.param, 'events[0]');
      assert.match(first.body.error.message, /message\.sent/);
      const second = await acct.test.post('/v1/webhook_endpoints', {
        url: PUBLIC_URL,
        events: ['contact.created', '*'],
      });
      assert.equal(second.status, 422);
      assert.equal(second.body.error.param, 'events[1]');
    });

    test('a rejected create stores no endpoint', async () => {
      const fresh = await t.newAccount('Rejected only');
      await fresh.test.post('/v1/webhook_endpoints', { url: PUBLIC_URL, events: ['nope'] });
      await fresh.test.post('/v1/webhook_endpoints', { url: 'http://1.1.1.1/', events: [] });
      const list = await fresh.test.get('/v1/webhook_endpoints');
      assert.deepEqual(list.body.data, []);
    });

    test('GET /v1/webhook_endpoints pages with limit and starting_after, oldest first, and hasMore', async () => {
      const fresh = await t.newAccount('Paging');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await createEndpoint(fresh.test, PUBLIC_URL)).id);
      const seen: string[] = [];
      const hasMore: boolean[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const query = `?limit=2${cursor ? `&starting_after=${cursor}` : ''}`;
        const res = await fresh.test.get(`/v1/webhook_endpoints${query}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.object, 'list');
        assert.ok(res.body.data.length <= 2);
        seen.push(...res.body.data.map((e: any) => e.id));
        hasMore.push(res.body.hasMore);
        if (!res.body.hasMore) break;
        cursor = res.body.data.at(-1).id;
      }
      assert.deepEqual(hasMore, [true, true, false]);
      assert.deepEqual(seen, [...ids].sort(), 'every endpoint once, in id order');
      const all = await fresh.test.get('/v1/webhook_endpoints');
      assert.equal(all.body.data.length, 5, 'the default page holds all five');
      assert.equal(all.body.hasMore, false);
    });

    test('limit outside 1..100 is 422 param limit', async () => {
      for (const limit of ['0', '101', 'ten']) {
        const res = await acct.test.get(`/v1/webhook_endpoints?limit=${limit}`);
        assert.equal(res.status, 422, limit);
        assert.equal(res.body.error.param, 'limit');
      }
    });

    test('the secret appears in no list and no retrieve', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL);
      const list = await acct.test.get('/v1/webhook_endpoints?limit=100');
      assert.ok(list.body.data.length > 0);
      for (const endpoint of list.body.data) assert.equal('secret' in endpoint, false);
      assert.equal(list.text.includes(created.secret), false);
      const one = await acct.test.get(`/v1/webhook_endpoints/${created.id}`);
      assert.equal('secret' in one.body, false);
      assert.equal(one.text.includes('whsec_'), false);
    });

    test('GET /v1/webhook_endpoints/{id} returns the endpoint as created, without its secret', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL, ['call.missed']);
      const res = await acct.test.get(`/v1/webhook_endpoints/${created.id}`);
      assert.equal(res.status, 200);
      const { secret: _secret, ...rest } = created;
      assert.deepEqual(res.body, rest);
    });

    test('POST /v1/webhook_endpoints/{id} updates url, events and enabled, and retrieve shows it', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL, ['contact.created']);
      const path = `/v1/webhook_endpoints/${created.id}`;
      const moved = await acct.test.post(path, { url: OTHER_PUBLIC_URL });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.url, OTHER_PUBLIC_URL);
      assert.deepEqual(moved.body.events, ['contact.created'], 'events untouched');
      const resubscribed = await acct.test.post(path, {
        events: ['call.completed', 'call.missed'],
      });
      assert.deepEqual(resubscribed.body.events, ['call.completed', 'call.missed']);
      assert.equal(resubscribed.body.url, OTHER_PUBLIC_URL, 'url untouched');
      const disabled = await acct.test.post(path, { enabled: false });
      assert.equal(disabled.body.enabled, false);
      assert.equal(disabled.body.disabledReason, 'disabled_by_user');
      const enabled = await acct.test.post(path, { enabled: true });
      assert.equal(enabled.body.enabled, true);
      assert.equal(enabled.body.disabledReason, null);
      const fetched = await acct.test.get(path);
      assert.deepEqual(fetched.body, enabled.body);
      assert.equal('secret' in enabled.body, false, 'an update does not reveal the secret');
    });

    test('an update is validated like a create (url 422 param url, events 422 param events[i])', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL, ['contact.created']);
      const path = `/v1/webhook_endpoints/${created.id}`;
      const badUrl = await acct.test.post(path, { url: 'http://1.1.1.1/' });
      assert.equal(badUrl.status, 422);
      assert.equal(badUrl.body.error.param, 'url');
      const empty = await acct.test.post(path, { events: [] });
      assert.equal(empty.status, 422);
      assert.equal(empty.body.error.param, 'events');
      const unknown = await acct.test.post(path, {
        events: ['contact.created', 'contact.deleted'],
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.error.param, 'events[1]');
      const unchanged = await acct.test.get(path);
      assert.equal(unchanged.body.url, PUBLIC_URL);
      assert.deepEqual(unchanged.body.events, ['contact.created']);
    });

    test('DELETE /v1/webhook_endpoints/{id} deletes it: then 404 everywhere and gone from the list', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL);
      const path = `/v1/webhook_endpoints/${created.id}`;
      const res = await acct.test.request('DELETE', path);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { id: created.id, object: 'webhook_endpoint', deleted: true });
      assert.equal((await acct.test.get(path)).status, 404);
      assert.equal((await acct.test.get(path)).body.error.type, 'not_found');
      assert.equal((await acct.test.post(path, { enabled: true })).status, 404);
      assert.equal((await acct.test.request('DELETE', path)).status, 404);
      assert.equal((await acct.test.post(`${path}/rotate_secret`)).status, 404);
      const list = await acct.test.get('/v1/webhook_endpoints?limit=100');
      assert.equal(
        list.body.data.some((e: any) => e.id === created.id),
        false,
      );
    });

    test('a call that takes no fields (rotate_secret, retry) may send no body, an empty one or {}, and a field is 422 naming it', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL);
      const rotate = `/v1/webhook_endpoints/${created.id}/rotate_secret`;
      const auth = { authorization: `Bearer ${acct.testKey}` };
      const json = { ...auth, 'content-type': 'application/json' };
      for (const [headers, body] of [
        [auth, undefined],
        [json, undefined],
        [json, ''],
        [json, '{}'],
      ] as const) {
        const res = await rawRequest(t.url, { method: 'POST', path: rotate, headers, body });
        assert.equal(res.status, 200, `${JSON.stringify(body)}: ${res.text}`);
      }
      const before = (await acct.test.get(`/v1/webhook_endpoints/${created.id}`)).body;
      for (const path of [rotate, `/v1/webhook_endpoints/${created.id}/deliveries/whd_x/retry`]) {
        const res = await acct.test.post(path, { force: true });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(res.body.error, {
          type: 'validation_error',
          message: "Unknown field 'force'.",
          param: 'force',
        });
      }
      assert.deepEqual((await acct.test.get(`/v1/webhook_endpoints/${created.id}`)).body, before);
    });

    test('a test event needs no body; DELETE with Content-Type: application/json and no body is a DELETE', async () => {
      const created = await createEndpoint(acct.test, PUBLIC_URL, ['contact.created']);
      const path = `/v1/webhook_endpoints/${created.id}`;
      const json = { authorization: `Bearer ${acct.testKey}`, 'content-type': 'application/json' };
      for (const headers of [{ authorization: json.authorization }, json]) {
        const res = await rawRequest(t.url, { method: 'POST', path: `${path}/test`, headers });
        assert.equal(res.status, 202, res.text);
        assert.equal(res.body.eventType, 'message.received');
      }
      const nullBody = await rawRequest(t.url, {
        method: 'POST',
        path: `${path}/test`,
        headers: json,
        body: 'null',
      });
      assert.equal(nullBody.status, 400, 'a JSON null is a body, and not an object');
      const deleted = await rawRequest(t.url, { method: 'DELETE', path, headers: json, body: '' });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.body.deleted, true);
    });

    test('an unknown endpoint id is 404 not_found', async () => {
      const res = await acct.test.get('/v1/webhook_endpoints/whe_doesnotexist');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found');
    });

    /** Every route addressing one endpoint, with a harmless body. */
    const ROUTES: [string, (id: string) => string, unknown?][] = [
      ['GET', (id) => `/v1/webhook_endpoints/${id}`],
      ['POST', (id) => `/v1/webhook_endpoints/${id}`, { enabled: false }],
      ['POST', (id) => `/v1/webhook_endpoints/${id}/rotate_secret`],
      ['GET', (id) => `/v1/webhook_endpoints/${id}/deliveries`],
      ['POST', (id) => `/v1/webhook_endpoints/${id}/test`, { type: 'contact.created' }],
      [
        'POST',
        (id) => `/v1/webhook_endpoints/${id}/recover`,
        { since: '2020-01-01T00:00:00.000Z' },
      ],
      ['POST', (id) => `/v1/webhook_endpoints/${id}/deliveries/whd_x/retry`],
      ['DELETE', (id) => `/v1/webhook_endpoints/${id}`],
    ];

    test("another account's endpoint is 404 on every route, and left as it was", async () => {
      const other = await t.newAccount('Other');
      const theirs = await createEndpoint(other.test, PUBLIC_URL, ['contact.created']);
      for (const [method, path, body] of ROUTES) {
        const res = await acct.test.request(method, path(theirs.id), body);
        assert.equal(res.status, 404, `${method} ${path(theirs.id)}: ${res.text}`);
        assert.equal(res.body.error.type, 'not_found');
      }
      const still = await other.test.get(`/v1/webhook_endpoints/${theirs.id}`);
      assert.equal(still.status, 200);
      assert.equal(still.body.enabled, true);
      const mine = await acct.test.get('/v1/webhook_endpoints?limit=100');
      assert.equal(
        mine.body.data.some((e: any) => e.id === theirs.id),
        false,
      );
    });

    test('a test-mode endpoint is 404 to the live key of the same account, and the other way round', async () => {
      const testEndpoint = await createEndpoint(acct.test, PUBLIC_URL, ['contact.created']);
      const liveEndpoint = await createEndpoint(acct.live, PUBLIC_URL, ['contact.created']);
      for (const [method, path, body] of ROUTES) {
        const a = await acct.live.request(method, path(testEndpoint.id), body);
        assert.equal(a.status, 404, `live key, ${method} ${path(testEndpoint.id)}`);
        const b = await acct.test.request(method, path(liveEndpoint.id), body);
        assert.equal(b.status, 404, `test key, ${method} ${path(liveEndpoint.id)}`);
      }
      assert.equal((await acct.test.get(`/v1/webhook_endpoints/${testEndpoint.id}`)).status, 200);
      assert.equal((await acct.live.get(`/v1/webhook_endpoints/${liveEndpoint.id}`)).status, 200);
      const liveList = await acct.live.get('/v1/webhook_endpoints?limit=100');
      assert.deepEqual(
        liveList.body.data.map((e: any) => e.id),
        [liveEndpoint.id],
      );
    });
  });
}
