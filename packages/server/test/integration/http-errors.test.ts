import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/commands/create-api-key.ts';
import { revokeApiKey } from '../../src/commands/revoke-api-key.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { listEvents } from '../../src/store/repos/events.ts';
import { openStore } from '../../src/store/store.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { TestResponse } from '../support/http.ts';
import { rawRequest } from '../support/raw-http.ts';
import { assertApiError, assertStoresNothing } from '../support/api-errors.ts';
import { scoped } from '../../src/store/scope.ts';

const clock = { now: () => Date.now() };

async function contactCreatedCount(
  t: TestApp,
  accountId: string,
  mode: 'test' | 'live',
): Promise<number> {
  return (await listEvents(scoped(t.store.db, { accountId, mode }), 'contact.created')).length;
}

const CONTACT = JSON.stringify({ phone: '+14155550142', name: 'Grace' });

for (const engine of ENGINES) {
  describe(`HTTP error paths [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount();
    });
    after(() => t.close());

    describe('authentication', () => {
      test('a request without an Authorization header is 401 unauthorized and stores nothing', async () => {
        await assertStoresNothing(t.store, async () => {
          assertApiError(
            await t.client(null).post('/v1/contacts', { phone: '+14155550100' }),
            401,
            'unauthorized',
          );
        });
        assertApiError(await t.client(null).get('/v1/contacts/ct_x'), 401, 'unauthorized');
      });

      test('a 401 of the API asks for a bearer token (WWW-Authenticate), on every route', async () => {
        for (const [method, path] of [
          ['GET', '/v1/contacts/ct_x'],
          ['POST', '/v1/messages'],
          ['POST', '/v1/mcp'],
          ['GET', '/v1/nowhere'],
        ] as const) {
          const res = await t.client('sk_test_nope').request(method, path);
          assert.equal(res.status, 401, `${method} ${path}`);
          assert.equal(
            res.headers.get('www-authenticate'),
            'Bearer realm="Switchboard", error="invalid_token"',
          );
        }
        const none = await t.client(null).get('/v1/contacts/ct_x');
        assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="Switchboard"');
        const session = await t.client(null).get('/app/api/me');
        assert.equal(session.status, 401);
        assert.equal(session.headers.get('www-authenticate'), null, 'the softphone signs in');
      });

      test('a malformed key is 401 unauthorized, whatever its shape', async () => {
        const basic = Buffer.from(`${acct.testKey}:`).toString('base64');
        const authorizations = [
          'Bearer abc',
          `Basic ${basic}`,
          'Bearer sk_test_short',
          'sk_test_short',
          // A real key without the scheme, or with its prefix cut, is malformed too.
          acct.testKey,
          `Bearer ${acct.testKey.slice(8)}`,
          `Bearer ${acct.testKey}x!`,
          'Bearer',
        ];
        for (const authorization of authorizations) {
          await assertStoresNothing(t.store, async () => {
            const res = await t
              .client(null)
              .post('/v1/contacts', { phone: '+14155550100' }, { authorization });
            assertApiError(res, 401, 'unauthorized');
          });
        }
      });

      test('a well-formed but unknown key is 401 unauthorized and stores nothing', async () => {
        for (const key of [`sk_test_${randomBase62(40)}`, `sk_live_${randomBase62(32)}`]) {
          await assertStoresNothing(t.store, async () => {
            assertApiError(
              await t.client(key).post('/v1/contacts', { phone: '+14155550100' }),
              401,
              'unauthorized',
            );
          });
        }
      });

      test("a key's secret with the other mode's prefix is 401 unauthorized", async () => {
        const swapped = acct.testKey.replace(/^sk_test_/, 'sk_live_');
        assertApiError(await t.client(swapped).get('/v1/contacts/ct_x'), 401, 'unauthorized');
      });

      test('a revoked key is 401 unauthorized on the very next request', async () => {
        const key = await t.store.write((tx) =>
          createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
        );
        const client = t.client(key.secret);
        const created = await client.post('/v1/contacts', { phone: '+14155550101' });
        assert.equal(created.status, 201, 'the key works before it is revoked');
        await t.store.write((tx) => revokeApiKey(tx, { keyId: key.id }, { clock }));
        assertApiError(await client.get(`/v1/contacts/${created.body.id}`), 401, 'unauthorized');
        await assertStoresNothing(t.store, async () => {
          assertApiError(
            await client.post('/v1/contacts', { phone: '+14155550101' }),
            401,
            'unauthorized',
          );
        });
        // The account's other keys are untouched.
        assert.equal((await acct.test.get(`/v1/contacts/${created.body.id}`)).status, 200);
      });

      test('a key revoked by another instance on the same storage is 401 on the very next request', async () => {
        // A second store on the same database stands for another process (the CLI, another instance).
        const other = await openStore(t.database.options);
        try {
          for (let i = 0; i < 10; i++) {
            const key = await t.store.write((tx) =>
              createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
            );
            const client = t.client(key.secret);
            // Twice, so that whatever the server remembers about the key is warm.
            assert.equal((await client.get('/v1/contacts/ct_x')).status, 404);
            assert.equal((await client.get('/v1/contacts/ct_x')).status, 404);
            await other.write((tx) => revokeApiKey(tx, { keyId: key.id }, { clock }));
            assertApiError(await client.get('/v1/contacts/ct_x'), 401, 'unauthorized');
          }
        } finally {
          await other.close();
        }
      });

      test('a request that would change something, or fail, or replay is 401 once another instance revoked its key', async () => {
        const other = await openStore(t.database.options);
        try {
          const key = await t.store.write((tx) =>
            createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
          );
          const client = t.client(key.secret);
          const replayable = { 'idempotency-key': `revoked-${key.id}` };
          // Known and warm: a create, the same create under a key (recorded), and a failed one.
          assert.equal((await client.post('/v1/contacts', { phone: '+14155550107' })).status, 201);
          assert.equal(
            (await client.post('/v1/contacts', { phone: '+14155550108' }, replayable)).status,
            201,
          );
          assert.equal((await client.post('/v1/contacts', { phone: 'nope' })).status, 422);
          await other.write((tx) => revokeApiKey(tx, { keyId: key.id }, { clock }));
          await assertStoresNothing(t.store, async () => {
            const refused = [
              await client.post('/v1/contacts', { phone: '+14155550109' }),
              await client.post('/v1/contacts', { phone: 'nope' }),
              await client.post('/v1/contacts', { phone: '+14155550108' }, replayable),
              await client.post('/v1/messages', { from: acct.testNumbers[0], to: '+14155560001' }),
            ];
            for (const res of refused) assertApiError(res, 401, 'unauthorized');
          });
        } finally {
          await other.close();
        }
      });
    });

    describe('request format', () => {
      test('a body that is not valid JSON is 400 invalid_request and stores nothing', async () => {
        for (const body of ['{"phone":', '{phone: "+14155550100"}', "{'phone':'+1'}", 'nope']) {
          await assertStoresNothing(t.store, async () => {
            assertApiError(await acct.test.post('/v1/contacts', body), 400, 'invalid_request');
          });
        }
      });

      test('a POST with a body but no Content-Type is 400 invalid_request and stores nothing', async () => {
        await assertStoresNothing(t.store, async () => {
          const res = await rawRequest(t.url, {
            method: 'POST',
            path: '/v1/contacts',
            headers: { authorization: `Bearer ${acct.testKey}` },
            body: CONTACT,
          });
          assertApiError(res, 400, 'invalid_request');
        });
      });

      test('a POST with a Content-Type other than application/json is 400 invalid_request and stores nothing', async () => {
        const bodies: [string, string][] = [
          ['text/plain', CONTACT],
          ['text/plain;charset=UTF-8', CONTACT],
          ['application/x-www-form-urlencoded', 'phone=%2B14155550142&name=Grace'],
          ['multipart/form-data; boundary=x', `--x\r\n\r\n${CONTACT}\r\n--x--`],
          ['application/jsonp', CONTACT],
        ];
        for (const [contentType, body] of bodies) {
          await assertStoresNothing(t.store, async () => {
            const res = await rawRequest(t.url, {
              method: 'POST',
              path: '/v1/contacts',
              headers: { authorization: `Bearer ${acct.testKey}`, 'content-type': contentType },
              body,
            });
            assertApiError(res, 400, 'invalid_request');
          });
        }
      });

      test('application/json with a charset parameter is accepted', async () => {
        const res = await rawRequest(t.url, {
          method: 'POST',
          path: '/v1/contacts',
          headers: {
            authorization: `Bearer ${acct.testKey}`,
            'content-type': 'application/json; charset=utf-8',
          },
          body: CONTACT,
        });
        assert.equal(res.status, 201, res.text);
      });

      test('a POST whose route expects a body but has none is 400 invalid_request', async () => {
        for (const headers of [{}, { 'content-type': 'application/json' }] as Record<
          string,
          string
        >[]) {
          await assertStoresNothing(t.store, async () => {
            const res = await rawRequest(t.url, {
              method: 'POST',
              path: '/v1/contacts',
              headers: { authorization: `Bearer ${acct.testKey}`, ...headers },
            });
            assertApiError(res, 400, 'invalid_request');
          });
        }
      });

      test('a JSON body that is not an object (array, null, string, number) is 400 invalid_request', async () => {
        for (const body of ['[{"phone":"+14155550142"}]', '[]', 'null', '"+14155550142"', '42']) {
          await assertStoresNothing(t.store, async () => {
            assertApiError(await acct.test.post('/v1/contacts', body), 400, 'invalid_request');
          });
        }
      });

      test('a body over 256 KiB is 400 invalid_request and stores nothing', async () => {
        const big = JSON.stringify({ phone: '+14155550142', name: 'x'.repeat(300 * 1024) });
        await assertStoresNothing(t.store, async () => {
          assertApiError(await acct.test.post('/v1/contacts', big), 400, 'invalid_request');
        });
      });

      test('a chunked body that grows past 256 KiB is 400 invalid_request and stores nothing', async () => {
        const chunks = [Buffer.from('{"phone":"+14155550142","name":"')];
        for (let i = 0; i < 20; i++) chunks.push(Buffer.alloc(16 * 1024, 'x'));
        chunks.push(Buffer.from('"}'));
        await assertStoresNothing(t.store, async () => {
          const res = await rawRequest(t.url, {
            method: 'POST',
            path: '/v1/contacts',
            headers: {
              authorization: `Bearer ${acct.testKey}`,
              'content-type': 'application/json',
            },
            chunks,
          });
          assertApiError(res, 400, 'invalid_request');
        });
      });

      test('a URL with a broken percent-encoding is 400 invalid_request with the error body', async () => {
        for (const authorization of [`Bearer ${acct.testKey}`, '']) {
          const res = await rawRequest(t.url, {
            method: 'GET',
            path: '/v1/contacts/%zz',
            headers: authorization ? { authorization } : {},
          });
          assertApiError(res, 400, 'invalid_request');
        }
      });

      test('request headers too large to parse are 400 invalid_request with the error body', async () => {
        const res = await acct.test.get('/v1/contacts/ct_x', { 'x-padding': 'y'.repeat(20_000) });
        assertApiError(res, 400, 'invalid_request');
      });

      test('an unknown body field is 422 validation_error naming it, and stores nothing', async () => {
        for (const [body, param] of [
          [{ phone: '+14155550142', nickname: 'G' }, 'nickname'],
          [{ phone: '+14155550142', Phone: '+14155550142' }, 'Phone'],
          [{ phone: '+14155550142', text: 'hello' }, 'text'],
        ] as const) {
          await assertStoresNothing(t.store, async () => {
            assertApiError(
              await acct.test.post('/v1/contacts', body),
              422,
              'validation_error',
              param,
            );
          });
        }
      });
    });

    describe('unknown routes', () => {
      test('an unknown /v1 route without a key is 401, revealing nothing about which routes exist', async () => {
        assertApiError(await t.client(null).get('/v1/nothing-here'), 401, 'unauthorized');
        assertApiError(
          await t.client(null).post('/v1/nothing-here', { a: 1 }),
          401,
          'unauthorized',
        );
      });

      test('an unknown /v1 route with a valid key is 404 not_found', async () => {
        assertApiError(await acct.test.get('/v1/nothing-here'), 404, 'not_found');
        assertApiError(await acct.test.post('/v1/nothing-here', { a: 1 }), 404, 'not_found');
      });

      test('an unknown route outside /v1 is 404 not_found with the error body', async () => {
        assertApiError(await t.client(null).get('/nothing-here'), 404, 'not_found');
      });
    });

    describe('idempotency', () => {
      test('the same Idempotency-Key with the same body replays the first response and creates one contact', async () => {
        const account = await t.newAccount('Replay');
        const headers = { 'idempotency-key': `replay-${randomBase62(8)}` };
        const body = { phone: '+14155550150', name: 'Hedy', email: 'hedy@example.com' };
        const first = await account.test.post('/v1/contacts', body, headers);
        assert.equal(first.status, 201, first.text);
        assert.equal(
          first.headers.get('idempotent-replayed'),
          null,
          'the first answer is no replay',
        );
        for (let i = 0; i < 2; i++) {
          // The same body in another key order is the same request.
          const again = await account.test.post(
            '/v1/contacts',
            { email: body.email, name: body.name, phone: body.phone },
            headers,
          );
          assert.equal(again.status, first.status);
          assert.equal(again.text, first.text, 'the replay is byte for byte the first body');
          assert.equal(again.headers.get('idempotent-replayed'), 'true');
          assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
          assert.notEqual(
            again.headers.get('request-id'),
            first.headers.get('request-id'),
            'each request has its own id',
          );
        }
        assert.equal(await contactCreatedCount(t, account.accountId, 'test'), 1);
        const rows = await t.store.db
          .selectFrom('contacts')
          .select('id')
          .where('account_id', '=', account.accountId)
          .execute();
        assert.deepEqual(
          rows.map((r) => r.id),
          [first.body.id],
        );
      });

      test('a request without an Idempotency-Key is never replayed', async () => {
        const account = await t.newAccount('No key');
        const a = await account.test.post('/v1/contacts', { phone: '+14155550151' });
        const b = await account.test.post('/v1/contacts', { phone: '+14155550151' });
        assert.equal(a.status, 201);
        assert.equal(b.status, 201);
        assert.notEqual(a.body.id, b.body.id);
        assert.equal(await contactCreatedCount(t, account.accountId, 'test'), 2);
      });

      test('the same Idempotency-Key with another body is 409 idempotency_conflict and creates nothing', async () => {
        const account = await t.newAccount('Conflict');
        const headers = { 'idempotency-key': `conflict-${randomBase62(8)}` };
        const first = await account.test.post('/v1/contacts', { phone: '+14155550152' }, headers);
        assert.equal(first.status, 201);
        await assertStoresNothing(t.store, async () => {
          const res = await account.test.post('/v1/contacts', { phone: '+14155550153' }, headers);
          assertApiError(res, 409, 'idempotency_conflict', 'Idempotency-Key');
          assert.equal(res.headers.get('idempotent-replayed'), null);
        });
        assert.equal(await contactCreatedCount(t, account.accountId, 'test'), 1);
      });

      test('an Idempotency-Key in test mode and the same key in live mode are independent', async () => {
        const account = await t.newAccount('Modes');
        const headers = { 'idempotency-key': `modes-${randomBase62(8)}` };
        const body = { phone: '+14155550154', name: 'Mode' };
        const inTest = await account.test.post('/v1/contacts', body, headers);
        const inLive = await account.live.post('/v1/contacts', body, headers);
        assert.equal(inTest.status, 201);
        assert.equal(inLive.status, 201);
        assert.equal(inLive.headers.get('idempotent-replayed'), null, 'live did not replay test');
        assert.notEqual(inLive.body.id, inTest.body.id);
        assert.equal(await contactCreatedCount(t, account.accountId, 'test'), 1);
        assert.equal(await contactCreatedCount(t, account.accountId, 'live'), 1);
        // And each mode still replays its own answer.
        const replayLive = await account.live.post('/v1/contacts', body, headers);
        assert.equal(replayLive.headers.get('idempotent-replayed'), 'true');
        assert.equal(replayLive.body.id, inLive.body.id);
      });

      test('the same Idempotency-Key used by two accounts is independent', async () => {
        const one = await t.newAccount('One');
        const two = await t.newAccount('Two');
        const headers = { 'idempotency-key': `accounts-${randomBase62(8)}` };
        const a = await one.test.post('/v1/contacts', { phone: '+14155550155' }, headers);
        const b = await two.test.post('/v1/contacts', { phone: '+14155550156' }, headers);
        assert.equal(a.status, 201);
        assert.equal(b.status, 201, 'another account never sees a conflict with this key');
        assert.equal(b.body.phone, '+14155550156');
      });

      test('concurrent requests with the same Idempotency-Key create exactly one contact and all answer it', async () => {
        const account = await t.newAccount('Race');
        const headers = { 'idempotency-key': `race-${randomBase62(8)}` };
        const body = { phone: '+14155550157', name: 'Race' };
        const responses = await Promise.all(
          Array.from({ length: 5 }, () => account.test.post('/v1/contacts', body, headers)),
        );
        for (const res of responses) assert.equal(res.status, 201, res.text);
        const ids = new Set(responses.map((r) => r.body.id));
        assert.equal(ids.size, 1, `one id for all: ${[...ids].join(', ')}`);
        assert.equal(new Set(responses.map((r) => r.text)).size, 1, 'every body is the same');
        assert.equal(await contactCreatedCount(t, account.accountId, 'test'), 1);
      });

      test('an Idempotency-Key that is not 1-255 visible ASCII characters is 422 naming it', async () => {
        for (const key of ['x'.repeat(256), 'with space']) {
          await assertStoresNothing(t.store, async () => {
            const res = await acct.test.post(
              '/v1/contacts',
              { phone: '+14155550158' },
              { 'idempotency-key': key },
            );
            assertApiError(res, 422, 'validation_error', 'Idempotency-Key');
          });
        }
      });
    });

    describe('request ids', () => {
      test('every response, success or failure, has a request-id header starting with req_', async () => {
        const responses: [string, TestResponse][] = [
          ['healthz', await t.client(null).get('/healthz')],
          ['openapi', await t.client(null).get('/v1/openapi.json')],
          ['201', await acct.test.post('/v1/contacts', { phone: '+14155550159' })],
          ['401', await t.client(null).get('/v1/contacts/ct_x')],
          ['404', await acct.test.get('/v1/contacts/ct_x')],
          ['404 route', await t.client(null).get('/nowhere')],
          ['400 url', await rawRequest(t.url, { method: 'GET', path: '/v1/%zz' })],
          ['400 headers', await t.client(null).get('/healthz', { 'x-pad': 'y'.repeat(20_000) })],
          ['400', await acct.test.post('/v1/contacts', '{')],
          ['422', await acct.test.post('/v1/contacts', { phone: 'x' })],
          [
            '400 too large',
            await acct.test.post('/v1/contacts', { phone: 'x'.repeat(300 * 1024) }),
          ],
        ];
        const ids = new Set<string>();
        for (const [name, res] of responses) {
          const id = res.headers.get('request-id');
          assert.match(id ?? '', /^req_[0-9A-Za-z]{8,}$/, name);
          ids.add(id!);
        }
        assert.equal(ids.size, responses.length, 'request ids are unique');
      });

      test('a client-sent request-id header is not echoed back', async () => {
        const res = await acct.test.get('/v1/contacts/ct_x', { 'request-id': 'req_chosen' });
        assert.notEqual(res.headers.get('request-id'), 'req_chosen');
        assert.match(res.headers.get('request-id') ?? '', /^req_/);
      });
    });
  });
}
