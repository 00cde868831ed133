import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { revokeApiKey } from '../../src/commands/revoke-api-key.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { TestResponse } from '../support/http.ts';

/** 2 requests a second per address, a burst of 4: a flood of 20 meets the limit. */
const RATE = 2;
const FLOOD = 20;

/** Asserts a `429 rate_limited` in the error shape with a whole-second Retry-After. */
function assertLimited(res: TestResponse, context: string): void {
  assert.equal(res.status, 429, `${context}: ${res.status} ${res.text}`);
  assert.deepEqual(Object.keys(res.body ?? {}), ['error'], context);
  assert.equal(res.body.error.type, 'rate_limited', context);
  assert.equal(typeof res.body.error.message, 'string', context);
  assert.match(res.headers.get('request-id') ?? '', /^req_/, context);
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${context}: Retry-After`);
}

for (const engine of ENGINES) {
  describe(`rate limit without a valid key [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    // The limiter reads this clock. It stands still, so no bucket refills during a flood
    // however slow its requests (a sign-in hashes a password), and moves a minute
    // before each test, which then starts with every bucket full.
    const start = Date.now();
    let offset = 0;
    const clock = { now: () => start + offset };
    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        clock,
        env: { SWITCHBOARD_UNAUTHENTICATED_RATE_LIMIT: String(RATE) },
      });
      acct = await t.newAccount();
    });
    beforeEach(() => {
      offset += 60_000;
    });
    after(() => t.close());

    /** Sends `send` up to FLOOD times until a 429; returns it (null if none) and the statuses before. */
    async function flood(send: () => Promise<TestResponse>) {
      const before: number[] = [];
      for (let i = 0; i < FLOOD; i++) {
        const res = await send();
        if (res.status === 429) return { limited: res, before };
        before.push(res.status);
      }
      return { limited: null, before };
    }

    test('a keyless flood on /v1 is 429 rate_limited with Retry-After, after a burst of 401s', async () => {
      const { limited, before } = await flood(() => t.client(null).get('/v1/contacts/ct_x'));
      assert.ok(limited, `a 429 within ${FLOOD} requests (got ${before.join(' ')})`);
      assertLimited(limited, 'keyless');
      assert.ok(before.length >= 2 * RATE, `the burst passes first (${before.length})`);
      assert.ok(before.every((status) => status === 401));
    });

    test('a request with a valid key from the same address at the same moment is not limited', async () => {
      const { limited } = await flood(() => t.client(null).get('/v1/contacts/ct_x'));
      assert.ok(limited, 'the address is limited');
      assert.equal((await acct.test.get('/v1/contacts/ct_x')).status, 404);
      const created = await acct.test.post('/v1/contacts', { phone: '+14155550142' });
      assert.equal(created.status, 201, created.text);
      assertLimited(await t.client(null).get('/v1/contacts/ct_x'), 'keyless, still');
    });

    test('requests with a valid key do not count against their address', async () => {
      for (let i = 0; i < FLOOD; i++) {
        assert.equal((await acct.test.get('/v1/contacts/ct_x')).status, 404);
      }
      assert.equal((await t.client(null).get('/v1/contacts/ct_x')).status, 401);
    });

    test('a flood of unknown, malformed or revoked keys is limited too', async () => {
      const revoked = await t.newAccount();
      await t.store.write((tx) => revokeApiKey(tx, { keyId: revoked.testKeyId }, { clock }));
      for (const key of [`sk_test_${randomBase62(40)}`, 'sk_test_short', revoked.testKey]) {
        offset += 60_000;
        const { limited, before } = await flood(() => t.client(key).get('/v1/contacts/ct_x'));
        assert.ok(limited, `${key}: a 429 within ${FLOOD} (got ${before.join(' ')})`);
        assertLimited(limited, key);
      }
    });

    test('a flood of the softphone sign-in is limited per address', async () => {
      let n = 0;
      const { limited, before } = await flood(() =>
        t.client(null).post('/app/api/session', {
          email: `nobody${++n}@example.com`,
          password: 'not a password',
        }),
      );
      assert.ok(limited, `a 429 within ${FLOOD} (got ${before.join(' ')})`);
      assertLimited(limited, 'sign-in');
      assert.ok(before.every((status) => status === 401));
    });

    test('softphone requests without a session are limited per address', async () => {
      const { limited } = await flood(() => t.client(null).get('/app/api/me'));
      assert.ok(limited);
      assertLimited(limited, '/app/api/me');
    });
  });
}
