import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import {
  assertToolCatalog,
  assertToolError,
  callTool,
  connectClient,
  TOOL_NAMES,
} from '../support/mcp.ts';
import { phoneNumbers, waitFor } from '../support/messaging.ts';
import {
  childEnv,
  jsonOutput,
  MAIN,
  runCli,
  startServe,
  type CliResult,
  type ServeProcess,
} from '../support/processes.ts';

const nextPhone = phoneNumbers('718');

function assertExit(result: CliResult, code: number): void {
  assert.equal(
    result.code,
    code,
    `exit ${result.code} (signal ${result.signal})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  );
}

/** Every line `switchboard mcp` wrote on stdout for these protocol messages, and how it exited. */
function rawSession(
  env: Record<string, string>,
  messages: object[],
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'mcp'], {
      env: childEnv(env),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      // Close stdin once every request (the messages with an id) has its answer.
      const answered = stdout.split('\n').filter((line) => line.includes('"id"')).length;
      if (answered === messages.filter((m) => 'id' in m).length) child.stdin.end();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
    for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
  });
}

for (const engine of ENGINES) {
  describe(`switchboard mcp over stdio [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let accountId: string;
    let testNumbers: string[];
    let key: { id: string; secret: string };
    const clients: Client[] = [];
    const servers: ServeProcess[] = [];

    async function cli(args: string[]): Promise<any> {
      const result = await runCli([...args, '--json'], env);
      assertExit(result, 0);
      return jsonOutput(result);
    }

    /** An SDK client talking to a fresh `switchboard mcp` child acting with `secret`. */
    async function connect(secret: string): Promise<Client> {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [MAIN, 'mcp'],
        env: { ...env, SWITCHBOARD_API_KEY: secret },
        stderr: 'pipe',
      });
      const client = await connectClient(transport);
      clients.push(client);
      return client;
    }

    before(async () => {
      database = await createTestDatabase(engine);
      env = {
        ...database.env,
        SWITCHBOARD_LOG_LEVEL: 'silent',
        SWITCHBOARD_SANDBOX_DELAY_MS: '20',
      };
      const account = await cli(['accounts', 'create', '--name', 'MCP stdio']);
      accountId = account.id;
      testNumbers = account.testNumbers;
      key = await cli(['keys', 'create', '--account', accountId, '--mode', 'test']);
    });
    after(async () => {
      for (const client of clients) await client.close();
      for (const server of servers) await server.stop(5_000);
      await database.drop();
    });

    test('lists the tools and answers each of them', async () => {
      const client = await connect(key.secret);
      assert.equal(client.getServerVersion()?.name, 'switchboard');
      assertToolCatalog((await client.listTools()).tools);

      const to = nextPhone();
      const sent = await callTool(client, 'send_text', {
        from: testNumbers[0],
        to,
        body: 'Sent over stdio',
      });
      assert.equal(sent.isError, false, JSON.stringify(sent.json));
      assert.match(sent.structured.id, /^msg_/);
      assert.equal(sent.structured.status, 'queued');

      const status = await callTool(client, 'get_message_status', { id: sent.structured.id });
      assert.equal(status.isError, false, JSON.stringify(status.json));
      assert.equal(status.structured.id, sent.structured.id);
      assert.equal(status.structured.to, to);

      const contact = await callTool(client, 'create_contact', { phone: to, name: 'Grace' });
      assert.equal(contact.isError, false, JSON.stringify(contact.json));
      assert.match(contact.structured.id, /^ct_/);
      assert.equal(contact.structured.name, 'Grace');

      assertToolError(
        await callTool(client, 'send_text', { from: testNumbers[0], to: '12', body: 'x' }),
        'validation_error',
        'to',
      );
      assertToolError(
        await callTool(client, 'get_message_status', { id: 'msg_unknown' }),
        'not_found',
      );
    });

    test('a serve process on the same storage delivers what was sent over stdio', async () => {
      const server = await startServe(env);
      servers.push(server);
      const client = await connect(key.secret);
      const sent = await callTool(client, 'send_text', {
        from: testNumbers[1],
        to: nextPhone(),
        body: 'Delivered by the server',
      });
      assert.equal(sent.isError, false, JSON.stringify(sent.json));
      await waitFor(
        async () => {
          const status = await callTool(client, 'get_message_status', { id: sent.structured.id });
          return status.structured?.status === 'delivered' ? true : undefined;
        },
        `${sent.structured.id} delivered`,
        { timeoutMs: 15_000, intervalMs: 100 },
      );
    });

    test('stdout carries protocol messages only, and the process exits when stdin closes', async () => {
      const { code, stdout } = await rawSession({ ...env, SWITCHBOARD_API_KEY: key.secret }, [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1.0.0' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]);
      assert.equal(code, 0, stdout);
      const lines = stdout.split('\n').filter((line) => line !== '');
      assert.equal(lines.length, 2, stdout);
      const [init, list] = lines.map((line) => JSON.parse(line));
      assert.equal(init.jsonrpc, '2.0');
      assert.equal(init.result.serverInfo.name, 'switchboard');
      assert.deepEqual(list.result.tools.map((t: any) => t.name).sort(), TOOL_NAMES);
    });

    test('a missing, malformed, unknown or revoked key is refused with a message on stderr', async () => {
      const missing = await runCli(['mcp'], env);
      assertExit(missing, 2);
      assert.match(missing.stderr, /SWITCHBOARD_API_KEY/);
      assert.equal(missing.stdout, '');

      const doomed = await cli(['keys', 'create', '--account', accountId, '--mode', 'test']);
      const running = await connect(doomed.secret);
      const revoke = await runCli(['keys', 'revoke', doomed.id], env);
      assertExit(revoke, 0);
      for (const secret of ['not-a-key', `sk_test_${'x'.repeat(40)}`, doomed.secret]) {
        const refused = await runCli(['mcp'], { ...env, SWITCHBOARD_API_KEY: secret });
        assertExit(refused, 1);
        assert.match(refused.stderr, /SWITCHBOARD_API_KEY was refused/);
        assert.equal(refused.stdout, '', 'nothing on stdout');
      }
      await assert.rejects(connect(doomed.secret));
      // A server started before the revocation refuses the very next call.
      assertToolError(
        await callTool(running, 'get_message_status', { id: 'msg_unknown' }),
        'unauthorized',
      );
    });
  });
}
