import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { assertApiError, assertStoresNothing } from '../support/api-errors.ts';
import { ENGINES } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`methods a path does not take [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;

    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
    });
    after(() => t.close());

    test('a method an existing path does not take is 405 method_not_allowed, its Allow header listing those it takes; a path no route has stays 404', async () => {
      for (const [method, path, allow] of [
        ['DELETE', '/v1/messages/msg_x', 'GET, HEAD'],
        ['POST', '/v1/messages/msg_x', 'GET, HEAD'],
        ['PUT', '/v1/contacts', 'POST'],
        ['GET', '/v1/contacts', 'POST'],
        ['PATCH', '/v1/webhook_endpoints/we_x', 'DELETE, GET, HEAD, POST'],
        ['GET', '/v1/webhook_endpoints/we_x/rotate_secret', 'POST'],
        ['DELETE', '/v1/webhook_endpoints/we_x/deliveries/whd_x/retry', 'POST'],
        ['PUT', '/v1/sandbox/inbound?x=1', 'POST'],
      ] as const) {
        const res = await acct.test.request(method, path, method === 'GET' ? undefined : {});
        assertApiError(res, 405, 'method_not_allowed');
        assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      }
      for (const [method, path] of [
        ['GET', '/v1/nothing-here'],
        ['DELETE', '/v1/contacts/ct_x/extra'],
        ['PUT', '/v1/messages/msg_x/status'],
      ] as const) {
        const res = await acct.test.request(method, path);
        assertApiError(res, 404, 'not_found');
        assert.equal(res.headers.get('allow'), null);
      }
    });

    test('a 405 changes nothing', async () => {
      await assertStoresNothing(t.store, async () => {
        const res = await acct.test.request(
          'PUT',
          '/v1/contacts',
          { phone: '+14155550142' },
          { 'idempotency-key': 'put-is-not-post' },
        );
        assertApiError(res, 405, 'method_not_allowed');
      });
    });

    test('a wrong method on /v1 is 405 only with a key: without one it is 401, as an unknown path is', async () => {
      assertApiError(
        await t.client(null).request('DELETE', '/v1/messages/msg_x'),
        401,
        'unauthorized',
      );
      assertApiError(
        await acct.test.request('DELETE', '/v1/messages/msg_x'),
        405,
        'method_not_allowed',
      );
    });

    test("the softphone's API answers a wrong method with 405 too", async () => {
      const res = await t.client(null).request('DELETE', '/app/api/conversations/cv_x');
      assertApiError(res, 405, 'method_not_allowed');
      assert.equal(res.headers.get('allow'), 'GET, HEAD');
    });
  });
}
