// The client against the real server, on every storage engine: messages, contacts and the sandbox
// through their resource methods, typed results and typed errors, and a check that every operation
// of the API description has a method. Webhook endpoints: client-webhook-endpoints.test.ts;
// retries: client-retries.test.ts; wire details and error mapping: client-transport.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES, startTestApp, type TestAccount, type TestApp } from './support/server.ts';
import {
  AuthenticationError,
  IdempotencyConflictError,
  InvalidRequestError,
  NotFoundError,
  RecipientOptedOutError,
  Switchboard,
  ValidationError,
} from '../src/index.ts';
import type { Message, SendMessageInput } from '../src/index.ts';
import { ISO_UTC, phoneNumbers, rejectsWith } from './support/client-assertions.ts';
import { eventually } from './support/http-doubles.ts';

for (const engine of ENGINES) {
  describe(`Switchboard client against the server [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let client: Switchboard;
    let from: string;
    const phone = phoneNumbers('646');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('SDK client');
      client = new Switchboard(acct.testKey, { baseUrl: `${t.url}/v1` });
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());

    test('messages.send resolves with the queued outbound Message', async () => {
      const to = phone();
      const message = await client.messages.send({ from, to, body: 'Hello from the SDK' });
      assert.match(message.id, /^msg_/);
      assert.equal(message.object, 'message');
      assert.equal(message.from, from);
      assert.equal(message.to, to);
      assert.equal(message.body, 'Hello from the SDK');
      assert.equal(message.direction, 'outbound');
      assert.equal(message.status, 'queued');
      assert.equal(message.segments, 1);
      assert.match(message.conversationId, /^cv_/);
      assert.match(message.createdAt, ISO_UTC);
    });

    test('messages.retrieve follows a sent message to delivered', async () => {
      const sent = await client.messages.send({ from, to: phone(), body: 'track me' });
      const delivered = await eventually(async () => {
        const m = await client.messages.retrieve(sent.id);
        return m.status === 'delivered' ? m : undefined;
      }, `${sent.id} delivered`);
      assert.equal(delivered.id, sent.id);
      assert.equal(delivered.failureReason, null);
    });

    test('a group send resolves with its conversation and participants', async () => {
      const to = [phone(), phone()];
      const message = await client.messages.send({ from, to, body: 'Team update' });
      assert.deepEqual(message.to, to);
      assert.match(message.conversationId, /^cv_/);
      assert.deepEqual(
        message.participants?.map((p) => p.phone),
        to,
      );
    });

    test('the same idempotencyKey and body replays the first message instead of sending again', async () => {
      const input: SendMessageInput = { from, to: phone(), body: 'exactly once' };
      const idempotencyKey = `order-${crypto.randomUUID()}`;
      const first = await client.messages.send(input, { idempotencyKey });
      const second = await client.messages.send(input, { idempotencyKey });
      assert.deepEqual(second, first);
    });

    test('the same idempotencyKey with another body is IdempotencyConflictError (409)', async () => {
      const idempotencyKey = `order-${crypto.randomUUID()}`;
      await client.messages.send({ from, to: phone(), body: 'first' }, { idempotencyKey });
      const error = await rejectsWith(
        client.messages.send({ from, to: phone(), body: 'second' }, { idempotencyKey }),
        IdempotencyConflictError,
        409,
        'idempotency_conflict',
      );
      assert.equal(error.param, 'Idempotency-Key');
    });

    test('a non-E.164 recipient is ValidationError (422) naming the field in param', async () => {
      const error = await rejectsWith(
        client.messages.send({ from, to: '555-0100', body: 'hi' }),
        ValidationError,
        422,
        'validation_error',
      );
      assert.equal(error.param, 'to');
      assert.deepEqual((error.raw as { error: { param: string } }).error.param, 'to');
    });

    test('an unknown field is ValidationError naming it (text for body)', async () => {
      const input = { from, to: phone(), text: 'hi' } as unknown as SendMessageInput;
      const error = await rejectsWith(
        client.messages.send(input),
        ValidationError,
        422,
        'validation_error',
      );
      assert.equal(error.param, 'text');
    });

    test('a body that is not a JSON object is InvalidRequestError (400)', async () => {
      await rejectsWith(
        client.messages.send(null as unknown as SendMessageInput),
        InvalidRequestError,
        400,
        'invalid_request',
      );
    });

    test('a send to a recipient who replied STOP is RecipientOptedOutError (422)', async () => {
      const to = phone();
      await client.sandbox.inbound({ from: to, to: from, body: 'STOP' });
      await rejectsWith(
        client.messages.send({ from, to, body: 'are you there?' }),
        RecipientOptedOutError,
        422,
        'recipient_opted_out',
      );
    });

    test('an unknown message id is NotFoundError (404)', async () => {
      await rejectsWith(
        client.messages.retrieve('msg_doesnotexist'),
        NotFoundError,
        404,
        'not_found',
      );
    });

    test('an id is sent as one path segment, so it cannot reach another route', async () => {
      const contact = await client.contacts.create({ phone: phone() });
      // Unencoded, this id would be the path /v1/contacts/<id> and find the contact.
      await rejectsWith(
        client.messages.retrieve(`../contacts/${contact.id}`),
        NotFoundError,
        404,
        'not_found',
      );
      await assert.rejects(client.messages.retrieve('..'), TypeError);
      await assert.rejects(client.messages.retrieve(''), TypeError);
    });

    test('a test-mode message is NotFoundError to the live key of the same account', async () => {
      const sent = await client.messages.send({ from, to: phone(), body: 'test world' });
      const live = new Switchboard(acct.liveKey, { baseUrl: `${t.url}/v1` });
      await rejectsWith(live.messages.retrieve(sent.id), NotFoundError, 404, 'not_found');
    });

    test('an unknown API key is AuthenticationError (401, unauthorized)', async () => {
      const stranger = new Switchboard(`sk_test_${'x'.repeat(40)}`, { baseUrl: `${t.url}/v1` });
      await rejectsWith(
        stranger.messages.send({ from, to: phone(), body: 'hi' }),
        AuthenticationError,
        401,
        'unauthorized',
      );
      await rejectsWith(
        stranger.contacts.retrieve('ct_x'),
        AuthenticationError,
        401,
        'unauthorized',
      );
    });

    test('contacts.create resolves with the Contact and contacts.retrieve returns it', async () => {
      const input = { phone: phone(), name: 'Ada Lovelace', email: 'ada@example.com' };
      const created = await client.contacts.create(input);
      assert.match(created.id, /^ct_/);
      assert.equal(created.object, 'contact');
      assert.equal(created.name, 'Ada Lovelace');
      assert.equal(created.phone, input.phone);
      assert.equal(created.email, 'ada@example.com');
      assert.equal(created.company, null);
      assert.match(created.createdAt, ISO_UTC);
      assert.deepEqual(await client.contacts.retrieve(created.id), created);
    });

    test('an invalid contact email is ValidationError with param email', async () => {
      const error = await rejectsWith(
        client.contacts.create({ phone: phone(), email: 'not-an-address' }),
        ValidationError,
        422,
        'validation_error',
      );
      assert.equal(error.param, 'email');
    });

    test('an unknown contact id is NotFoundError', async () => {
      await rejectsWith(client.contacts.retrieve('ct_nope'), NotFoundError, 404, 'not_found');
    });

    test('sandbox.inbound resolves with the inbound Message, delivered', async () => {
      const sender = phone();
      const message: Message = await client.sandbox.inbound({
        from: sender,
        to: from,
        body: 'Hi!',
      });
      assert.match(message.id, /^msg_/);
      assert.equal(message.direction, 'inbound');
      assert.equal(message.status, 'delivered');
      assert.equal(message.from, sender);
      assert.equal(message.to, from);
      assert.deepEqual(await client.messages.retrieve(message.id), message);
    });

    test('sandbox.call resolves with the Call summary of a missed and a completed call', async () => {
      const caller = phone();
      const missed = await client.sandbox.call({ from: caller, to: from, outcome: 'missed' });
      assert.match(missed.id, /^call_/);
      assert.equal(missed.object, 'call');
      assert.equal(missed.status, 'missed');
      assert.equal(missed.duration, 0);
      assert.equal(missed.direction, 'inbound');
      assert.match(missed.startedAt, ISO_UTC);
      const completed = await client.sandbox.call({
        from,
        to: caller,
        direction: 'outbound',
        outcome: 'completed',
        duration: 42,
      });
      assert.equal(completed.status, 'completed');
      assert.equal(completed.direction, 'outbound');
      assert.equal(completed.duration, 42);
    });

    test('the sandbox is NotFoundError to a live key', async () => {
      const live = new Switchboard(acct.liveKey, { baseUrl: `${t.url}/v1` });
      await rejectsWith(
        live.sandbox.inbound({ from: phone(), to: from, body: 'hi' }),
        NotFoundError,
        404,
        'not_found',
      );
      await rejectsWith(
        live.sandbox.call({ from: phone(), to: from, outcome: 'missed' }),
        NotFoundError,
        404,
        'not_found',
      );
    });
  });

  describe(`Switchboard client covers the API description [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { background: false });
    });
    after(() => t.close());

    // Each operation of GET /v1/openapi.json and the method that calls it.
    const METHOD_OF_OPERATION: Record<string, string> = {
      sendMessage: 'messages.send',
      getMessage: 'messages.retrieve',
      createContact: 'contacts.create',
      getContact: 'contacts.retrieve',
      createWebhookEndpoint: 'webhookEndpoints.create',
      listWebhookEndpoints: 'webhookEndpoints.list',
      getWebhookEndpoint: 'webhookEndpoints.retrieve',
      updateWebhookEndpoint: 'webhookEndpoints.update',
      deleteWebhookEndpoint: 'webhookEndpoints.del',
      rotateWebhookSecret: 'webhookEndpoints.rotateSecret',
      listWebhookDeliveries: 'webhookEndpoints.listDeliveries',
      retryWebhookDelivery: 'webhookEndpoints.retryDelivery',
      recoverWebhookEvents: 'webhookEndpoints.recover',
      sendWebhookTestEvent: 'webhookEndpoints.sendTestEvent',
      sandboxInbound: 'sandbox.inbound',
      sandboxCall: 'sandbox.call',
    };
    // Operations no client of the JSON API calls: the providers' callbacks (Twilio and Telnyx
    // post them), and a media link, a signed URL that any plain GET fetches without a key.
    const NOT_FOR_CLIENTS = ['carrierStatusCallback', 'carrierInboundCallback', 'getMedia'];

    test('every operation of the OpenAPI document has a client method, and no method is extra', async () => {
      const response = await fetch(`${t.url}/v1/openapi.json`);
      assert.equal(response.status, 200);
      const document = (await response.json()) as {
        paths: Record<string, Record<string, { operationId: string }>>;
      };
      const operations = Object.values(document.paths)
        .flatMap((methods) => Object.values(methods).map((op) => op.operationId))
        .filter((operation) => !NOT_FOR_CLIENTS.includes(operation));
      assert.deepEqual(operations.sort(), Object.keys(METHOD_OF_OPERATION).sort());
      const client = new Switchboard('sk_test_unused', { baseUrl: `${t.url}/v1` });
      for (const path of Object.values(METHOD_OF_OPERATION)) {
        const [resource, method] = path.split('.') as [string, string];
        const target = (client as unknown as Record<string, Record<string, unknown>>)[resource];
        assert.equal(typeof target?.[method], 'function', `${path} exists`);
      }
    });
  });
}
