import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createApiKey } from '../../src/commands/create-api-key.ts';
import { revokeApiKey } from '../../src/commands/revoke-api-key.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import {
  assertToolCatalog,
  assertToolError,
  callTool,
  connectClient,
  type ToolAnswer,
} from '../support/mcp.ts';
import { assertNothingStored, outboundTo, phoneNumbers, waitFor } from '../support/messaging.ts';

const nextPhone = phoneNumbers('646');
const REPLAYED = 'switchboard/idempotent-replayed';

for (const engine of ENGINES) {
  describe(`MCP over Streamable HTTP [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let client: Client;
    const clients: Client[] = [];

    /** A transport to `/v1/mcp` with these request headers. */
    function transport(headers: Record<string, string>): StreamableHTTPClientTransport {
      return new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp`), {
        requestInit: { headers },
      });
    }

    async function connectWith(key: string, extra: Record<string, string> = {}): Promise<Client> {
      const connected = await connectClient(
        transport({ authorization: `Bearer ${key}`, ...extra }),
      );
      clients.push(connected);
      return connected;
    }

    /** Asserts that connecting is refused with HTTP 401 and the API's error body. */
    async function assertRefused(headers: Record<string, string>): Promise<void> {
      await assert.rejects(connectClient(transport(headers)), (error: unknown) => {
        assert.ok(error instanceof StreamableHTTPError, String(error));
        assert.equal(error.code, 401);
        assert.match(error.message, /"type":"unauthorized"/);
        return true;
      });
    }

    function send(args: Record<string, unknown>, as: Client = client): Promise<ToolAnswer> {
      return callTool(as, 'send_text', { from: acct.testNumbers[0], ...args });
    }

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('MCP account');
      client = await connectWith(acct.testKey);
    });
    after(async () => {
      for (const open of clients) await open.close();
      await t.close();
    });

    test('the server announces itself and lists exactly its three tools with their schemas', async () => {
      assert.equal(client.getServerVersion()?.name, 'switchboard');
      assert.match(client.getInstructions() ?? '', /E\.164/);
      const { tools } = await client.listTools();
      assertToolCatalog(tools);
    });

    test('send_text accepts a text as queued, and get_message_status follows it to delivered', async () => {
      const to = nextPhone();
      const sent = await send({ to, body: 'Your table is ready.' });
      assert.equal(sent.isError, false, JSON.stringify(sent.json));
      assert.match(sent.structured.id, /^msg_/);
      assert.equal(sent.structured.status, 'queued');
      assert.equal(sent.structured.from, acct.testNumbers[0]);
      assert.equal(sent.structured.to, to);
      assert.equal(sent.structured.segments, 1);
      assert.equal(sent.meta?.[REPLAYED], undefined);
      // The REST API sees the very message the tool created.
      const rest = await acct.test.get(`/v1/messages/${sent.structured.id}`);
      assert.equal(rest.status, 200);
      assert.equal(rest.body.body, 'Your table is ready.');
      const delivered = await waitFor(async () => {
        const status = await callTool(client, 'get_message_status', { id: sent.structured.id });
        assert.equal(status.isError, false, JSON.stringify(status.json));
        return status.structured.status === 'delivered' ? status.structured : undefined;
      }, `${sent.structured.id} delivered`);
      assert.equal(delivered.failureReason, null);
      assert.deepEqual(delivered, (await acct.test.get(`/v1/messages/${delivered.id}`)).body);
    });

    test('create_contact returns the contact (ct_) as the REST API stores it', async () => {
      const phone = nextPhone();
      const created = await callTool(client, 'create_contact', {
        phone,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        company: 'Analytical Engines',
      });
      assert.equal(created.isError, false, JSON.stringify(created.json));
      assert.match(created.structured.id, /^ct_/);
      assert.equal(created.structured.object, 'contact');
      assert.equal(created.structured.phone, phone);
      const rest = await acct.test.get(`/v1/contacts/${created.structured.id}`);
      assert.deepEqual(rest.body, created.structured);
      const bare = await callTool(client, 'create_contact', { phone: nextPhone() });
      assert.equal(bare.structured.name, null);
    });

    test('an invalid number is an isError validation_error naming the field, and nothing is stored', async () => {
      await assertNothingStored(t.store.db, acct.accountId, async () => {
        assertToolError(await send({ to: '555-0100', body: 'Hi' }), 'validation_error', 'to');
        assertToolError(
          // Outside the sandbox range (+1NPA55501XX): never one of the account's own numbers.
          await send({ from: '+12025550999', to: nextPhone(), body: 'Hi' }),
          'validation_error',
          'from',
        );
        assertToolError(await send({ to: nextPhone(), body: '   ' }), 'validation_error', 'body');
        assertToolError(
          await callTool(client, 'create_contact', { phone: '4155550100' }),
          'validation_error',
          'phone',
        );
        assertToolError(
          await callTool(client, 'create_contact', { phone: nextPhone(), email: 'not-an-address' }),
          'validation_error',
          'email',
        );
      });
    });

    test("arguments outside the input schema are an isError validation_error in the REST API's words, naming the field", async () => {
      await assertNothingStored(t.store.db, acct.accountId, async () => {
        const cases: [Record<string, unknown>, string, string][] = [
          [{ to: nextPhone(), body: 'Hi', text: 'Hi' }, 'text', "Unknown field 'text'."],
          [{ to: nextPhone() }, 'body', "Missing required field 'body'."],
          [{ to: [nextPhone()], body: 'Hi' }, 'to', 'to must be a string.'],
          [
            { to: nextPhone(), body: 'x'.repeat(6401) },
            'body',
            'body must be at most 6400 characters long.',
          ],
        ];
        for (const [args, param, message] of cases) {
          const answer = await send(args);
          assertToolError(answer, 'validation_error', param);
          assert.equal(answer.json.error.message, message);
        }
        assertToolError(await callTool(client, 'get_message_status', {}), 'validation_error', 'id');
      });
    });

    test('an unknown tool is a protocol error (invalid params), not a tool result', async () => {
      await assert.rejects(
        client.callTool({ name: 'send_fax', arguments: {} }),
        (error: unknown) => {
          assert.ok(error instanceof McpError, String(error));
          assert.equal(error.code, ErrorCode.InvalidParams);
          return true;
        },
      );
    });

    test('a recipient who texted STOP is an isError recipient_opted_out', async () => {
      const to = nextPhone();
      const stop = await acct.test.post('/v1/sandbox/inbound', {
        from: to,
        to: acct.testNumbers[0],
        body: 'STOP',
      });
      assert.equal(stop.status, 201);
      await assertNothingStored(t.store.db, acct.accountId, async () =>
        assertToolError(await send({ to, body: 'Still there?' }), 'recipient_opted_out', 'to'),
      );
    });

    test('an unknown message id, or one of the other mode, is an isError not_found', async () => {
      assertToolError(
        await callTool(client, 'get_message_status', { id: 'msg_doesnotexist' }),
        'not_found',
      );
      const sent = await send({ to: nextPhone(), body: 'Test mode only' });
      const live = await connectWith(acct.liveKey);
      assertToolError(
        await callTool(live, 'get_message_status', { id: sent.structured.id }),
        'not_found',
      );
      const other = await t.newAccount('Other account');
      assertToolError(
        await callTool(await connectWith(other.testKey), 'get_message_status', {
          id: sent.structured.id,
        }),
        'not_found',
      );
    });

    test('an idempotencyKey replays the first send, and conflicts with other arguments', async () => {
      const to = nextPhone();
      const idempotencyKey = `mcp-${randomBase62(12)}`;
      const first = await send({ to, body: 'Once only', idempotencyKey });
      const again = await send({ to, body: 'Once only', idempotencyKey });
      assert.equal(again.isError, false);
      assert.deepEqual(again.structured, first.structured);
      assert.equal(again.meta?.[REPLAYED], true);
      assert.equal((await outboundTo(t.store.db, acct.accountId, 'test', to)).length, 1);
      assertToolError(
        await send({ to, body: 'Something else', idempotencyKey }),
        'idempotency_conflict',
        'idempotencyKey',
      );
      // The key names the same request as POST /v1/messages with that Idempotency-Key.
      const rest = await acct.test.post(
        '/v1/messages',
        { from: acct.testNumbers[0], to, body: 'Once only' },
        { 'idempotency-key': idempotencyKey },
      );
      assert.equal(rest.status, 201);
      assert.equal(rest.headers.get('idempotent-replayed'), 'true');
      assert.equal(rest.body.id, first.structured.id);
      assert.equal((await outboundTo(t.store.db, acct.accountId, 'test', to)).length, 1);
      assertToolError(
        await send({ to, body: 'x', idempotencyKey: 'has space' }),
        'validation_error',
      );
    });

    test('concurrent sends with one idempotencyKey create one message', async () => {
      const to = nextPhone();
      const idempotencyKey = `race-${randomBase62(12)}`;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => send({ to, body: 'Raced', idempotencyKey })),
      );
      const ids = new Set(answers.map((a) => a.structured?.id));
      assert.equal(ids.size, 1, JSON.stringify(answers.map((a) => a.json)));
      assert.equal((await outboundTo(t.store.db, acct.accountId, 'test', to)).length, 1);
    });

    test('a missing, malformed or revoked key is refused with 401 and the API error body', async () => {
      await assertRefused({});
      await assertRefused({ authorization: 'Bearer sk_test_nope' });
      const key = await t.store.write((tx) =>
        createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock: t.app.deps.clock }),
      );
      const doomed = await connectWith(key.secret);
      assert.equal((await doomed.listTools()).tools.length, 3);
      await t.store.write((tx) => revokeApiKey(tx, { keyId: key.id }, { clock: t.app.deps.clock }));
      // Revocation holds from the very next request, even inside an open session.
      await assert.rejects(doomed.listTools(), (error: unknown) => {
        assert.ok(error instanceof StreamableHTTPError, String(error));
        assert.equal(error.code, 401);
        return true;
      });
      await assertRefused({ authorization: `Bearer ${key.secret}` });
      const raw = await fetch(`${t.url}/v1/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(raw.status, 401);
      const body: any = await raw.json();
      assert.equal(body.error.type, 'unauthorized');
      assert.match(raw.headers.get('request-id') ?? '', /^req_/);
    });

    test('HTTP details: GET and DELETE are 405, a non-JSON body is 400, an Idempotency-Key header is ignored', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await acct.test.request(method, '/v1/mcp', undefined, {
          accept: 'text/event-stream',
        });
        assert.equal(res.status, 405, method);
        assert.equal(res.headers.get('allow'), 'POST');
      }
      const wrongType = await acct.test.post('/v1/mcp', 'hello', { 'content-type': 'text/plain' });
      assert.equal(wrongType.status, 400);
      assert.equal(wrongType.body.error.type, 'invalid_request');
      // Every request of the session carries the same header; none may replay another's answer.
      const keyed = await connectWith(acct.testKey, {
        'idempotency-key': `hdr-${randomBase62(8)}`,
      });
      assert.equal((await keyed.listTools()).tools.length, 3);
      const sent = await send({ to: nextPhone(), body: 'Header ignored' }, keyed);
      assert.equal(sent.isError, false, JSON.stringify(sent.json));
    });
  });
}
