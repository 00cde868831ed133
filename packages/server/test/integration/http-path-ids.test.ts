import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { assertApiError, assertStoresNothing } from '../support/api-errors.ts';
import { ENGINES } from '../support/engines.ts';
import { createEndpoint } from '../support/webhooks.ts';

/** Ids that name nothing: around the old 64-character cap, far past it, empty, and odd. */
const ODD_IDS = [
  `msg_${'x'.repeat(61)}`, // 65 characters
  `msg_${'x'.repeat(66)}`, // 70
  `ct_${'x'.repeat(97)}`, // 100
  `ct_${'x'.repeat(98)}`, // 101: past the router's old limit
  `we_${'x'.repeat(10_000)}`,
  '%00', // a NUL character, which PostgreSQL's text cannot hold
  'nul%00inside',
  '%F0%9F%93%9E', // 📞
  'a%2Fb', // an encoded slash stays in the one segment
  "quote'and%20space",
];

for (const engine of ENGINES) {
  describe(`ids in the path [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let endpointId: string;

    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
      endpointId = (await createEndpoint(acct.test, 'http://127.0.0.1:9/hooks')).id;
    });
    after(() => t.close());

    test('an id of any length or shape that names nothing is 404 not_found, never a validation error', async () => {
      for (const id of ODD_IDS) {
        for (const path of [
          `/v1/messages/${id}`,
          `/v1/contacts/${id}`,
          `/v1/webhook_endpoints/${id}`,
          `/v1/webhook_endpoints/${id}/deliveries`,
        ]) {
          assertApiError(await acct.test.get(path), 404, 'not_found');
        }
      }
    });

    test('a change asked of an id that names nothing is 404 not_found and changes nothing', async () => {
      for (const id of ODD_IDS) {
        await assertStoresNothing(t.store, async () => {
          const client = acct.test;
          for (const res of [
            await client.post(`/v1/webhook_endpoints/${id}`, { description: 'x' }),
            await client.request('DELETE', `/v1/webhook_endpoints/${id}`),
            await client.post(`/v1/webhook_endpoints/${id}/rotate_secret`),
            await client.post(`/v1/webhook_endpoints/${id}/recover`, {
              since: new Date(0).toISOString(),
            }),
            await client.post(`/v1/webhook_endpoints/${id}/test`, { type: 'contact.created' }),
            await client.post(`/v1/webhook_endpoints/${endpointId}/deliveries/${id}/retry`),
            await client.post(`/v1/webhook_endpoints/${id}/deliveries/whd_x/retry`),
          ]) {
            assertApiError(res, 404, 'not_found');
          }
        });
      }
    });
  });
}
