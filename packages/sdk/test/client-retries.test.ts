// Retries as spec section 7 allows them, proven through a proxy that fails on purpose in front of
// the real server: what the proxy saw (attempts, Idempotency-Key) and what the server stored.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, startTestApp, type TestAccount, type TestApp } from './support/server.ts';
import {
  ApiServerError,
  AuthenticationError,
  ConnectionError,
  RateLimitError,
  Switchboard,
  TimeoutError,
  ValidationError,
} from '../src/index.ts';
import type { SwitchboardOptions } from '../src/index.ts';
import { eventually, startFaultyProxy, type FaultyProxy } from './support/http-doubles.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const engine of ENGINES) {
  describe(`Switchboard client retries [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let proxy: FaultyProxy;
    let from: string;
    let next = 0;
    const phone = () => `+1718${2_000_000 + next++}`;

    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount('SDK retries');
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());
    beforeEach(async () => {
      await proxy?.close();
      proxy = await startFaultyProxy(t.url);
    });
    after(() => proxy?.close());

    /** A client through the proxy; retry waits are kept tiny unless a test sets them. */
    function viaProxy(options: SwitchboardOptions = {}, key = acct.testKey) {
      return new Switchboard(key, { baseUrl: `${proxy.url}/v1`, retryBaseDelayMs: 1, ...options });
    }

    /** How many messages the server stored for `to`, read from its database. */
    async function storedTo(to: string): Promise<number> {
      const rows = await t.store.db
        .selectFrom('messages')
        .select('id')
        .where('account_id', '=', acct.accountId)
        .where('to_json', '=', JSON.stringify(to))
        .execute();
      return rows.length;
    }

    function keysSeen(): (string | undefined)[] {
      return proxy.requests.map((r) => r.headers['idempotency-key'] as string | undefined);
    }

    test('a 429 is retried after its Retry-After with the same Idempotency-Key; one message is created', async () => {
      proxy.faults.push({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
      const to = phone();
      const started = performance.now();
      const message = await viaProxy().messages.send({ from, to, body: 'after the limit' });
      const waited = proxy.requests[1]!.at - proxy.requests[0]!.at;
      assert.ok(waited >= 990, `waited ${waited} ms, Retry-After asked for 1000`);
      assert.ok(performance.now() - started >= 990);
      assert.equal(proxy.requests.length, 2);
      const [first, second] = keysSeen();
      assert.match(first ?? '', UUID);
      assert.equal(second, first);
      assert.equal(await storedTo(to), 1);
      assert.equal((await viaProxy().messages.retrieve(message.id)).id, message.id);
    });

    test('a 503 after the server already wrote is retried with the same key and replayed: one message', async () => {
      proxy.faults.push({ kind: 'status', status: 503, forward: true });
      const to = phone();
      const message = await viaProxy().messages.send({ from, to, body: 'once' });
      assert.equal(proxy.requests.length, 2);
      assert.equal(keysSeen()[1], keysSeen()[0]);
      assert.equal(await storedTo(to), 1, 'the retry replayed instead of sending again');
      const firstAnswer = JSON.parse(proxy.forwarded[0]!.body) as { id: string };
      assert.equal(message.id, firstAnswer.id);
    });

    test('a dropped connection after the server wrote is retried with the same key: one message', async () => {
      proxy.faults.push({ kind: 'drop', forward: true });
      const to = phone();
      const message = await viaProxy().messages.send({ from, to, body: 'dropped once' });
      assert.equal(proxy.requests.length, 2);
      assert.equal(keysSeen()[1], keysSeen()[0]);
      assert.equal(await storedTo(to), 1);
      assert.equal(message.id, (JSON.parse(proxy.forwarded[0]!.body) as { id: string }).id);
    });

    test('a dropped connection on every attempt is ConnectionError after maxRetries', async () => {
      proxy.faults.push({ kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' });
      const to = phone();
      await assert.rejects(
        viaProxy({ maxRetries: 2 }).messages.send({ from, to, body: 'never arrives' }),
        (error: unknown) =>
          error instanceof ConnectionError &&
          !(error instanceof TimeoutError) &&
          error.type === 'connection_error' &&
          error.status === undefined,
      );
      assert.equal(proxy.requests.length, 3, 'one attempt and two retries');
      assert.equal(await storedTo(to), 0);
    });

    test('an attempt that times out after the server wrote is retried with the same key: one message', async () => {
      proxy.faults.push({ kind: 'hang', forward: true });
      const to = phone();
      const message = await viaProxy({ timeoutMs: 300 }).messages.send({ from, to, body: 'slow' });
      assert.equal(proxy.requests.length, 2);
      assert.equal(keysSeen()[1], keysSeen()[0]);
      assert.equal(await storedTo(to), 1);
      assert.equal(message.id, (JSON.parse(proxy.forwarded[0]!.body) as { id: string }).id);
    });

    test('timeouts on every attempt end in TimeoutError after maxRetries, all with one key', async () => {
      proxy.faults.push({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
      const started = performance.now();
      await assert.rejects(
        viaProxy({ timeoutMs: 150, maxRetries: 2 }).messages.send({
          from,
          to: phone(),
          body: 'nobody answers',
        }),
        (error: unknown) =>
          error instanceof TimeoutError &&
          error instanceof ConnectionError &&
          error.type === 'timeout',
      );
      assert.ok(performance.now() - started >= 3 * 150 - 10, 'each attempt got its timeout');
      assert.equal(proxy.requests.length, 3);
      assert.equal(new Set(keysSeen()).size, 1);
    });

    test('5xx on every attempt is ApiServerError after maxRetries + 1 attempts', async () => {
      for (let i = 0; i < 5; i++) proxy.faults.push({ kind: 'status', status: 500 });
      await assert.rejects(
        viaProxy({ maxRetries: 3 }).messages.retrieve('msg_whatever'),
        (error: unknown) =>
          error instanceof ApiServerError &&
          error.status === 500 &&
          error.requestId === 'req_proxy',
      );
      assert.equal(proxy.requests.length, 4);
      assert.equal(proxy.faults.length, 1, 'the fifth fault was never reached');
    });

    test('maxRetries 0 on one call makes exactly one attempt', async () => {
      proxy.faults.push({ kind: 'status', status: 503 });
      await assert.rejects(
        viaProxy().contacts.create({ phone: phone() }, { maxRetries: 0 }),
        ApiServerError,
      );
      assert.equal(proxy.requests.length, 1);
    });

    test('a GET is retried too but carries no Idempotency-Key', async () => {
      const sent = await viaProxy().messages.send({ from, to: phone(), body: 'read me' });
      proxy.requests.length = 0;
      proxy.faults.push({ kind: 'status', status: 502 }, { kind: 'drop' });
      const read = await viaProxy().messages.retrieve(sent.id);
      assert.equal(read.id, sent.id);
      assert.equal(proxy.requests.length, 3);
      assert.deepEqual(keysSeen(), [undefined, undefined, undefined]);
    });

    test('a caller idempotencyKey is the one sent on every attempt', async () => {
      proxy.faults.push({ kind: 'status', status: 503, forward: true });
      const idempotencyKey = `signup-${crypto.randomUUID()}`;
      const phoneOfContact = phone();
      const contact = await viaProxy().contacts.create(
        { phone: phoneOfContact, name: 'Grace' },
        { idempotencyKey },
      );
      assert.deepEqual(keysSeen(), [idempotencyKey, idempotencyKey]);
      const rows = await t.store.db
        .selectFrom('contacts')
        .select('id')
        .where('account_id', '=', acct.accountId)
        .where('phone', '=', phoneOfContact)
        .execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        [contact.id],
      );
    });

    test('each logical call gets its own generated key', async () => {
      await viaProxy().contacts.create({ phone: phone() });
      await viaProxy().contacts.create({ phone: phone() });
      const [a, b] = keysSeen();
      assert.match(a ?? '', UUID);
      assert.match(b ?? '', UUID);
      assert.notEqual(a, b);
    });

    test('a 422 is never retried: one request, ValidationError with param', async () => {
      const to = 'not-a-number';
      await assert.rejects(
        viaProxy({ maxRetries: 3 }).messages.send({ from, to, body: 'hi' }),
        (error: unknown) =>
          error instanceof ValidationError &&
          error.status === 422 &&
          error.param === 'to' &&
          typeof error.requestId === 'string' &&
          error.requestId !== 'req_proxy',
      );
      assert.equal(proxy.requests.length, 1);
    });

    test('a 401 is never retried: one request, AuthenticationError', async () => {
      const client = viaProxy({ maxRetries: 3 }, `sk_test_${'z'.repeat(40)}`);
      await assert.rejects(
        client.messages.send({ from, to: phone(), body: 'hi' }),
        (error: unknown) => error instanceof AuthenticationError && error.type === 'unauthorized',
      );
      assert.equal(proxy.requests.length, 1);
    });

    test('a Retry-After longer than MAX_RETRY_AFTER_SECONDS is not waited out', async () => {
      proxy.faults.push({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
      const started = performance.now();
      await assert.rejects(
        viaProxy().messages.send({ from, to: phone(), body: 'later' }),
        (error: unknown) => error instanceof RateLimitError && error.retryAfter === 3600,
      );
      assert.ok(performance.now() - started < 1000);
      assert.equal(proxy.requests.length, 1);
    });

    test('aborting the signal mid-attempt rejects with its reason and retries nothing', async () => {
      proxy.faults.push({ kind: 'hang' }, { kind: 'hang' });
      const controller = new AbortController();
      const to = phone();
      const call = viaProxy().messages.send(
        { from, to, body: 'cancel me' },
        { signal: controller.signal },
      );
      await eventually(async () => (proxy.requests.length === 1 ? true : undefined), 'attempt 1');
      const reason = new Error('user navigated away');
      controller.abort(reason);
      await assert.rejects(call, (error: unknown) => error === reason);
      await sleep(100);
      assert.equal(proxy.requests.length, 1);
    });

    test('aborting during the wait before a retry prevents the retry', async () => {
      proxy.faults.push({ kind: 'status', status: 503, headers: { 'retry-after': '2' } });
      const controller = new AbortController();
      const call = viaProxy().messages.send(
        { from, to: phone(), body: 'cancel in backoff' },
        { signal: controller.signal },
      );
      await eventually(async () => (proxy.requests.length === 1 ? true : undefined), 'attempt 1');
      await sleep(50);
      const started = performance.now();
      controller.abort();
      await assert.rejects(
        call,
        (error: unknown) => error instanceof DOMException && error.name === 'AbortError',
      );
      assert.ok(performance.now() - started < 500, 'the wait was cut short');
      await sleep(100);
      assert.equal(proxy.requests.length, 1);
    });

    test('an already-aborted signal sends nothing', async () => {
      await assert.rejects(
        viaProxy().contacts.create({ phone: phone() }, { signal: AbortSignal.abort() }),
        (error: unknown) => error instanceof DOMException && error.name === 'AbortError',
      );
      assert.equal(proxy.requests.length, 0);
    });
  });
}
