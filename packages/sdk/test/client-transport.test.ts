// The transport's own rules, against a stub that answers as told: which error class each answer
// becomes, what goes on the wire, the backoff formula and the client's option checks.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { parseRetryAfter } from '../src/errors.ts';
import { backoffDelayMs } from '../src/http.ts';
import {
  ApiServerError,
  AuthenticationError,
  ConnectionError,
  IdempotencyConflictError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  RecipientOptedOutError,
  SDK_VERSION,
  Switchboard,
  SwitchboardError,
  ValidationError,
} from '../src/index.ts';
import type { FetchLike } from '../src/index.ts';
import { sendJson, startStub, type Double, type SeenRequest } from './support/http-doubles.ts';

/** What the stub answers next: status, body (JSON unless a string) and headers. */
interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

describe('Switchboard client transport', () => {
  let stub: Double;
  let answers: Answer[];
  const ok: Answer = { status: 200, body: { id: 'msg_1', object: 'message' } };

  before(async () => {
    stub = await startStub((_req: SeenRequest, res) => {
      const answer = answers.shift() ?? ok;
      if (typeof answer.body === 'string') {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      } else sendJson(res, answer.status, answer.body ?? {}, answer.headers);
    });
  });
  after(() => stub.close());
  beforeEach(() => {
    answers = [];
    stub.requests.length = 0;
  });

  function client(options: ConstructorParameters<typeof Switchboard>[1] = {}) {
    return new Switchboard('sk_test_key', {
      baseUrl: `${stub.url}/v1`,
      retryBaseDelayMs: 1,
      ...options,
    });
  }

  /** The error a call rejects with. */
  async function failure(promise: Promise<unknown>): Promise<SwitchboardError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof SwitchboardError, String(error));
      return error;
    }
    assert.fail('expected the call to reject');
  }

  test('the error class follows error.type, even when the status says otherwise', async () => {
    const cases: [string, number, abstract new (...args: never[]) => SwitchboardError][] = [
      ['invalid_request', 400, InvalidRequestError],
      ['unauthorized', 401, AuthenticationError],
      ['not_found', 404, NotFoundError],
      ['idempotency_conflict', 409, IdempotencyConflictError],
      ['validation_error', 422, ValidationError],
      ['recipient_opted_out', 422, RecipientOptedOutError],
      ['rate_limited', 429, RateLimitError],
      ['internal_error', 500, ApiServerError],
      ['service_unavailable', 503, ApiServerError],
      // The documented sample of a 400 for what is really a validation failure.
      ['validation_error', 400, ValidationError],
      ['recipient_opted_out', 400, RecipientOptedOutError],
    ];
    for (const [type, status, Class] of cases) {
      answers.push({ status, body: { error: { type, message: `it is ${type}` } } });
      const error = await failure(client({ maxRetries: 0 }).messages.retrieve('msg_1'));
      assert.ok(error instanceof Class, `${type}/${status} gave ${error.name}`);
      assert.equal(error.type, type);
      assert.equal(error.status, status);
      assert.equal(error.message, `it is ${type}`);
    }
  });

  test('without a known type the class follows the status', async () => {
    const cases: [Answer, string, abstract new (...args: never[]) => SwitchboardError][] = [
      [{ status: 401, body: '' }, 'unauthorized', AuthenticationError],
      [{ status: 404, body: '<h1>Not Found</h1>' }, 'not_found', NotFoundError],
      [
        { status: 422, body: { error: { type: 'brand_new_rule' } } },
        'brand_new_rule',
        ValidationError,
      ],
      [
        { status: 409, body: { message: 'no envelope' } },
        'idempotency_conflict',
        IdempotencyConflictError,
      ],
      [{ status: 502, body: 'Bad Gateway' }, 'api_error', ApiServerError],
    ];
    for (const [answer, type, Class] of cases) {
      answers.push(answer);
      const error = await failure(client({ maxRetries: 0 }).messages.retrieve('msg_1'));
      assert.ok(error instanceof Class, `${answer.status} gave ${error.name}`);
      assert.equal(error.type, type);
      assert.match(error.message, /.+/);
    }
    answers.push({ status: 418, body: { error: { type: 'teapot', message: 'short and stout' } } });
    const error = await failure(client().messages.retrieve('msg_1'));
    assert.equal(error.constructor, SwitchboardError, 'an unknown 4xx is the base class');
    assert.equal(error.type, 'teapot');
    assert.equal(stub.requests.length, 1 + 5, 'and it is not retried');
  });

  test('an error keeps param, the request-id header and the raw body', async () => {
    const body = { error: { type: 'validation_error', message: 'bad to', param: 'to[1]' } };
    answers.push({ status: 422, body, headers: { 'request-id': 'req_123' } });
    const error = await failure(client().messages.send({ from: '+1', to: ['+2', 'x'] }));
    assert.equal(error.param, 'to[1]');
    assert.equal(error.requestId, 'req_123');
    assert.deepEqual(error.raw, body);
    assert.equal(error.headers?.get('request-id'), 'req_123');
    assert.equal(error.name, 'ValidationError');
  });

  test('400, 401, 404, 409 and 422 are never retried', async () => {
    for (const [status, type] of [
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [404, 'not_found'],
      [409, 'idempotency_conflict'],
      [422, 'validation_error'],
    ] as const) {
      stub.requests.length = 0;
      answers.push({ status, body: { error: { type, message: type } } }, ok, ok);
      await failure(client({ maxRetries: 5 }).contacts.create({ phone: '+15550100' }));
      assert.equal(stub.requests.length, 1, `${status} was retried`);
      answers.length = 0;
    }
  });

  test('a 429 without Retry-After is retried with backoff, and RateLimitError reads Retry-After', async () => {
    answers.push({ status: 429, body: { error: { type: 'rate_limited', message: 'slow' } } });
    assert.equal((await client().messages.retrieve('msg_1')).id, 'msg_1');
    assert.equal(stub.requests.length, 2);

    answers.push(
      ...[1, 2, 3].map(() => ({
        status: 429,
        body: { error: { type: 'rate_limited', message: 'slow' } },
        headers: { 'retry-after': '0' },
      })),
    );
    const error = await failure(client({ maxRetries: 2 }).messages.retrieve('msg_1'));
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, 0);
  });

  test('Retry-After is read as whole seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a past date is now');
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(null, now), null);
  });

  test('backoff is full jitter under a ceiling that doubles per retry up to the cap', () => {
    const top = () => 0.999_999;
    const ceilings = [0, 1, 2, 3, 4, 5, 6].map((n) =>
      Math.round(backoffDelayMs(n, 500, 8000, top)),
    );
    assert.deepEqual(ceilings, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
    assert.equal(
      backoffDelayMs(3, 500, 8000, () => 0),
      0,
    );
    assert.equal(
      backoffDelayMs(1, 500, 8000, () => 0.25),
      250,
    );
  });

  test('a 2xx body that is not JSON is an invalid_response error and is not retried', async () => {
    answers.push({ status: 200, body: 'not json' });
    const error = await failure(client().messages.retrieve('msg_1'));
    assert.equal(error.type, 'invalid_response');
    assert.equal(error.status, 200);
    assert.equal(error.raw, 'not json');
    assert.equal(stub.requests.length, 1);
  });

  test('every request carries the key, Accept and a User-Agent; only bodies carry Content-Type', async () => {
    const c = client({ userAgent: 'acme-crm/2.1' });
    await c.messages.retrieve('msg_1');
    await c.webhookEndpoints.rotateSecret('whe_1');
    await c.webhookEndpoints.sendTestEvent('whe_1');
    await c.webhookEndpoints.del('whe_1');
    const [get, rotate, testEvent, del] = stub.requests;
    for (const r of stub.requests) {
      assert.equal(r.headers.authorization, 'Bearer sk_test_key');
      assert.equal(r.headers.accept, 'application/json');
      assert.equal(r.headers['user-agent'], `acme-crm/2.1 switchboard-sdk/${SDK_VERSION}`);
    }
    assert.equal(get!.method, 'GET');
    assert.equal(get!.headers['content-type'], undefined);
    assert.equal(get!.headers['idempotency-key'], undefined);
    assert.equal(rotate!.method, 'POST');
    assert.equal(rotate!.url, '/v1/webhook_endpoints/whe_1/rotate_secret');
    assert.equal(rotate!.body, '');
    assert.equal(rotate!.headers['content-type'], undefined, 'no body, no Content-Type');
    assert.ok(rotate!.headers['idempotency-key']);
    assert.equal(testEvent!.headers['content-type'], 'application/json');
    assert.equal(testEvent!.body, '{}');
    assert.equal(del!.method, 'DELETE');
    assert.equal(del!.headers['content-type'], undefined);
  });

  test('list params become limit and starting_after; absent ones are left out', async () => {
    const c = client({ baseUrl: `${stub.url}/v1/` });
    await c.webhookEndpoints.list({ limit: 5, startingAfter: 'whe_9' });
    await c.webhookEndpoints.list();
    await c.webhookEndpoints.listDeliveries('whe_1', { startingAfter: 'whd_2' });
    assert.deepEqual(
      stub.requests.map((r) => r.url),
      [
        '/v1/webhook_endpoints?limit=5&starting_after=whe_9',
        '/v1/webhook_endpoints',
        '/v1/webhook_endpoints/whe_1/deliveries?starting_after=whd_2',
      ],
    );
  });

  test('ids are percent-encoded into a single path segment', async () => {
    const c = client();
    await c.messages.retrieve('a/b?c#d');
    await c.webhookEndpoints.retryDelivery('whe 1', 'whd/2');
    assert.deepEqual(
      stub.requests.map((r) => r.url),
      ['/v1/messages/a%2Fb%3Fc%23d', '/v1/webhook_endpoints/whe%201/deliveries/whd%2F2/retry'],
    );
  });

  test('recover sends a Date as ISO 8601', async () => {
    await client().webhookEndpoints.recover('whe_1', { since: new Date(Date.UTC(2026, 0, 2)) });
    assert.deepEqual(JSON.parse(stub.requests[0]!.body), { since: '2026-01-02T00:00:00.000Z' });
  });

  test('the fetch option is used for every attempt; a refused connection is ConnectionError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const calls: string[] = [];
    const counting: FetchLike = (url, init) => {
      calls.push(url);
      return fetch(url, init);
    };
    const c = new Switchboard('sk_test_key', {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      fetch: counting,
      maxRetries: 2,
      retryBaseDelayMs: 1,
    });
    const error = await failure(c.contacts.retrieve('ct_1'));
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.type, 'connection_error');
    assert.ok(error.cause !== undefined, 'the network error is kept as cause');
    assert.equal(calls.length, 3);
  });

  test('the constructor refuses a missing key and option values that could never work', () => {
    assert.throws(() => new Switchboard(''), TypeError);
    assert.throws(() => new Switchboard(undefined as unknown as string), TypeError);
    assert.throws(() => new Switchboard('sk_test_x', { maxRetries: -1 }), RangeError);
    assert.throws(() => new Switchboard('sk_test_x', { maxRetries: 1.5 }), RangeError);
    assert.throws(() => new Switchboard('sk_test_x', { timeoutMs: 0 }), RangeError);
    assert.throws(() => new Switchboard('sk_test_x', { retryBaseDelayMs: Number.NaN }), RangeError);
  });

  test('per-call maxRetries and timeoutMs are checked too, before anything is sent', async () => {
    const c = client();
    await assert.rejects(c.messages.retrieve('msg_1', { maxRetries: Number.NaN }), RangeError);
    await assert.rejects(c.messages.retrieve('msg_1', { timeoutMs: -5 }), RangeError);
    assert.equal(stub.requests.length, 0);
  });
});
