import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { contractOf, type CheckedResponse, type Contract } from '../support/contract.ts';
import { ENGINES } from '../support/engines.ts';

// The check every test client makes of every response (support/contract.ts), held to
// answers the app never gives: the other suites show it passes the ones it does.

const ERROR = JSON.stringify({ error: { type: 'not_found', message: 'No such thing.' } });

function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    status,
    text,
    headers: new Headers({ 'request-id': 'req_0123456789abcdef', ...headers }),
  } satisfies CheckedResponse;
}

for (const engine of ENGINES) {
  describe(`API description check of responses [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let contract: Contract;
    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
      contract = await contractOf(t.url);
    });
    after(() => t.close());

    test('a status the operation does not list fails, naming the method, path and status', () => {
      assert.throws(
        () => contract.check('GET', '/v1/contacts/ct_x?a=1', answer(418, ERROR)),
        (error: Error) => {
          assert.equal(error.name, 'AssertionError');
          assert.match(error.message, /^GET \/v1\/contacts\/ct_x answered 418: /);
          assert.match(error.message, /getContact does not list/);
          return true;
        },
      );
      assert.throws(
        () => contract.check('POST', '/v1/webhook_endpoints', answer(200, '{}')),
        /POST \/v1\/webhook_endpoints answered 200/,
      );
    });

    test('a body off the schema of its status fails', async () => {
      const created = await acct.test.post('/v1/contacts', { phone: '+14155550199' });
      assert.equal(created.status, 201, created.text);
      const path = `/v1/contacts/${created.body.id}`;
      contract.check('GET', path, answer(200, created.body));
      assert.throws(
        () => contract.check('GET', path, answer(200, { ...created.body, phone: 5 })),
        /answered 200: the body does not match the 200 schema of getContact: body\/phone must be string/,
      );
      assert.throws(
        () => contract.check('GET', path, answer(404, { error: { type: 'nope', message: 'x' } })),
        /the body does not match the 404 schema/,
      );
      assert.throws(
        () => contract.check('GET', path, answer(404, 'Not Found')),
        /a body that is not JSON/,
      );
    });

    test('a required header missing or off its schema fails: request-id on every answer, Retry-After on a 429', () => {
      const limited = { error: { type: 'rate_limited', message: 'Slow down.' } };
      contract.check('GET', '/v1/contacts/ct_x', answer(429, limited, { 'retry-after': '2' }));
      const bare = answer(404, ERROR);
      bare.headers.delete('request-id');
      assert.throws(
        () => contract.check('GET', '/v1/contacts/ct_x', bare),
        /the required header request-id is missing/,
      );
      assert.throws(
        () => contract.check('GET', '/v1/contacts/ct_x', answer(429, limited)),
        /the required header Retry-After is missing/,
      );
      assert.throws(
        () =>
          contract.check(
            'GET',
            '/v1/contacts/ct_x',
            answer(429, limited, { 'retry-after': '0.5' }),
          ),
        /header Retry-After: 0\.5 does not match its schema/,
      );
    });

    test('an answer to a path or method the document does not have is held to the error shape only', () => {
      contract.check('GET', '/v1/nothing-here', answer(404, ERROR));
      contract.check('DELETE', '/v1/contacts', answer(405, ERROR, { allow: 'POST' }));
      contract.check('GET', '/healthz', answer(200, { status: 'ok' }));
      assert.throws(
        () =>
          contract.check('DELETE', '/v1/contacts', answer(405, { message: 'Method Not Allowed' })),
        /DELETE \/v1\/contacts answered 405: an error body not in the error shape/,
      );
      assert.throws(
        () => contract.check('GET', '/nowhere', answer(404, 'Not Found')),
        /a body that is not JSON/,
      );
      const jsonRpc = { jsonrpc: '2.0', error: { code: -32000, message: 'Use POST.' }, id: null };
      contract.check('GET', '/v1/mcp', answer(405, jsonRpc));
      assert.throws(
        () => contract.check('GET', '/v1/nothing-here', answer(405, jsonRpc)),
        /an error body not in the error shape/,
      );
    });
  });
}
