// A key over its rate: 429 in the error shape, nothing stored, and per key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/commands/create-api-key.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { ApiClient, TestResponse } from '../support/http.ts';
import { assertApiError, assertStoresNothing } from '../support/api-errors.ts';

const clock = { now: () => Date.now() };

for (const engine of ENGINES) {
  describe(`rate limiting [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { env: { SWITCHBOARD_RATE_LIMIT: '2' } });
    });
    after(() => t.close());

    /** Sends requests with `client` until a 429 (at most `max`); returns it and how many passed. */
    async function untilLimited(
      client: ApiClient,
      max: number,
    ): Promise<{ limited: TestResponse | null; passed: number }> {
      let passed = 0;
      for (let i = 0; i < max; i++) {
        const res = await client.get('/v1/contacts/ct_x');
        if (res.status === 429) return { limited: res, passed };
        assert.equal(res.status, 404, res.text);
        passed++;
      }
      return { limited: null, passed };
    }

    test('a key over its rate is 429 rate_limited with a whole-second Retry-After', async () => {
      const acct = await t.newAccount();
      const { limited, passed } = await untilLimited(acct.test, 20);
      assert.ok(limited, 'a 429 within 20 requests at 2 requests/s');
      assertApiError(limited, 429, 'rate_limited');
      const retryAfter = limited.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^\d+$/, `Retry-After is whole seconds: ${retryAfter}`);
      assert.ok(Number(retryAfter) >= 1);
      // Burst is 2 x rate: the first 4 pass (a few more may refill while we send).
      assert.ok(passed >= 4, `the burst of 4 passes (passed ${passed})`);
      assert.ok(passed < 20);
    });

    test('a rate-limited POST stores nothing', async () => {
      const acct = await t.newAccount();
      const { limited } = await untilLimited(acct.test, 20);
      assert.ok(limited);
      await assertStoresNothing(t.store, async () => {
        const res = await acct.test.post('/v1/contacts', { phone: '+14155550160' });
        assertApiError(res, 429, 'rate_limited');
      });
    });

    test('the limit is per key: another key of the same account is not limited by the first', async () => {
      const acct = await t.newAccount();
      const second = await t.store.write((tx) =>
        createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
      );
      const { limited } = await untilLimited(acct.test, 20);
      assert.ok(limited, 'the first key is limited');
      const other = await t.client(second.secret).get('/v1/contacts/ct_x');
      assert.equal(other.status, 404, `the second key passes: ${other.text}`);
      assert.equal((await acct.live.get('/v1/contacts/ct_x')).status, 404, 'the live key too');
    });
  });
}
