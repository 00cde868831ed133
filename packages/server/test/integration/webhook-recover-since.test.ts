import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

const at = (iso: string) => Date.parse(iso);

for (const engine of ENGINES) {
  describe(`webhook recovery since a time [${engine}]`, () => {
    let now = at('2016-12-31T23:59:59.500Z');
    let t: TestApp;
    let acct: TestAccount;
    let endpoint: string;
    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        clock: { now: () => now },
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
      const created = await acct.test.post('/v1/webhook_endpoints', {
        url: 'http://127.0.0.1:9/hooks',
        events: ['contact.created'],
      });
      assert.equal(created.status, 201, created.text);
      endpoint = created.body.id;
      // One event just before the leap second of 2016, one as the next minute begins.
      assert.equal((await acct.test.post('/v1/contacts', { phone: '+14155550101' })).status, 201);
      now = at('2017-01-01T00:00:00.000Z');
      assert.equal((await acct.test.post('/v1/contacts', { phone: '+14155550102' })).status, 201);
      now = at('2017-01-01T00:01:00.000Z');
    });
    after(() => t.close());

    async function recovered(since: string): Promise<number> {
      const res = await acct.test.post(`/v1/webhook_endpoints/${endpoint}/recover`, { since });
      assert.equal(res.status, 202, `${since}: ${res.text}`);
      return res.body.count;
    }

    test('a since on a leap second (23:59:60) is the first instant of the next minute, as POSIX time counts it', async () => {
      assert.equal(await recovered('2016-12-31T23:59:59Z'), 2);
      assert.equal(await recovered('2016-12-31T23:59:60Z'), 1);
      assert.equal(await recovered('2016-12-31T23:59:60.001Z'), 0);
      assert.equal(await recovered('2017-01-01T00:59:60+01:00'), 1);
    });

    test('a since whose offset gives hours alone (+01, as ISO 8601 allows) is read as +01:00', async () => {
      assert.equal(await recovered('2017-01-01T00:59:59+01'), 2);
      assert.equal(await recovered('2017-01-01T01:00:00+01'), 1);
      assert.equal(await recovered('2016-12-31T23:00:01-01'), 0);
    });
  });
}
