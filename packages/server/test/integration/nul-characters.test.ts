import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { snapshotDatabase, snapshotTables, type SnapshotTable } from '../support/db-snapshot.ts';
import { ENGINES } from '../support/engines.ts';

// The NUL character (U+0000) is text SQLite keeps and PostgreSQL's text refuses; the API
// answers the same on both: refused (422) where it would be kept, naming nothing (404)
// where it would be looked up.
const NUL = 'a\u0000b';

for (const engine of ENGINES) {
  describe(`NUL characters [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let from: string;
    let endpoint: string;
    let tables: SnapshotTable[];
    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
      from = acct.testNumbers[0]!;
      const created = await acct.test.post('/v1/webhook_endpoints', {
        url: 'http://127.0.0.1:9/hooks',
        events: ['contact.created'],
      });
      assert.equal(created.status, 201, created.text);
      endpoint = created.body.id;
      tables = await snapshotTables(t.store);
    });
    after(() => t.close());

    test('text with a NUL character is 422 naming its field, and stores nothing', async () => {
      const writes: [string, Record<string, unknown>, string][] = [
        ['/v1/contacts', { phone: '+14155550100', name: NUL }, 'name'],
        ['/v1/contacts', { phone: '+14155550100', company: NUL }, 'company'],
        ['/v1/messages', { from, to: '+14155550100', body: NUL }, 'body'],
        ['/v1/messages', { from, to: '+14155550100', body: 'Hi', senderName: NUL }, 'senderName'],
        ['/v1/sandbox/inbound', { from: '+14155550100', to: from, body: NUL }, 'body'],
        [
          '/v1/webhook_endpoints',
          { url: 'http://127.0.0.1:9/', events: ['contact.created'], description: NUL },
          'description',
        ],
        [
          '/v1/webhook_endpoints',
          { url: `http://127.0.0.1:9/${NUL}`, events: ['contact.created'] },
          'url',
        ],
        [`/v1/webhook_endpoints/${endpoint}`, { description: NUL }, 'description'],
        [`/v1/webhook_endpoints/${endpoint}`, { url: `http://127.0.0.1:9/${NUL}` }, 'url'],
      ];
      for (const [path, body, param] of writes) {
        const before = await snapshotDatabase(t.store, tables);
        const res = await acct.test.post(path, body, { 'idempotency-key': `nul-${param}` });
        assert.equal(res.status, 422, `${path} ${param}: ${res.text}`);
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, param);
        assert.deepEqual(await snapshotDatabase(t.store, tables), before, `${path} ${param}`);
      }
    });

    test('an id with a NUL character names nothing: 404 on every operation that looks one up', async () => {
      const id = encodeURIComponent(NUL);
      const lookups: [string, string, unknown?][] = [
        ['GET', `/v1/messages/${id}`],
        ['GET', `/v1/contacts/${id}`],
        ['GET', `/v1/webhook_endpoints/${id}`],
        ['POST', `/v1/webhook_endpoints/${id}`, { enabled: false }],
        ['DELETE', `/v1/webhook_endpoints/${id}`],
        ['POST', `/v1/webhook_endpoints/${id}/rotate_secret`],
        ['GET', `/v1/webhook_endpoints/${id}/deliveries`],
        ['POST', `/v1/webhook_endpoints/${endpoint}/deliveries/${id}/retry`],
        ['POST', `/v1/webhook_endpoints/${id}/recover`, { since: '2026-01-01T00:00:00Z' }],
        ['POST', `/v1/webhook_endpoints/${id}/test`],
      ];
      for (const [method, path, body] of lookups) {
        const res = await acct.test.request(method, path, body);
        assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.error.type, 'not_found');
      }
      const sent = await acct.test.post('/v1/messages', { from, conversationId: NUL, body: 'Hi' });
      assert.equal(sent.status, 422, sent.text);
      assert.equal(sent.body.error.param, 'conversationId');
    });

    test('a page cursor with a NUL character is read up to it, as no id holds one', async () => {
      const second = await acct.test.post('/v1/webhook_endpoints', {
        url: 'http://127.0.0.1:9/second',
        events: ['contact.created'],
      });
      const after = encodeURIComponent(`${endpoint}\u0000after`);
      const page = await acct.test.get(`/v1/webhook_endpoints?starting_after=${after}`);
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(
        page.body.data.map((e: { id: string }) => e.id),
        [second.body.id],
      );
      const older = await acct.test.post(`/v1/webhook_endpoints/${endpoint}/test`);
      const newer = await acct.test.post(`/v1/webhook_endpoints/${endpoint}/test`);
      assert.equal(newer.status, 202, newer.text);
      const cursor = encodeURIComponent(`${newer.body.id}\u0000after`);
      const log = await acct.test.get(
        `/v1/webhook_endpoints/${endpoint}/deliveries?starting_after=${cursor}`,
      );
      assert.equal(log.status, 200, log.text);
      assert.deepEqual(
        log.body.data.map((d: { id: string }) => d.id),
        [older.body.id],
      );
    });
  });
}
