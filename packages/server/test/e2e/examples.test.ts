import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { childEnv, freePort } from '../support/processes.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const EXAMPLES = join(ROOT, 'examples');

/** Runs an example as its own process, collecting its output. */
function runExample(file: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [join(EXAMPLES, file), ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  return { child, out, exited };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await sleep(100);
  assert.ok(check(), `timed out waiting for ${what}`);
}

// The examples are documentation that runs: each is started against a real server.
describe('examples', () => {
  let t: TestApp;
  let acct: TestAccount;
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestApp('sqlite', { env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' } });
    acct = await t.newAccount();
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await t.close();
  });

  test('the webhook receiver verifies deliveries and handles each event id once', async () => {
    const port = await freePort();
    const endpoint = await acct.test.post('/v1/webhook_endpoints', {
      url: `http://127.0.0.1:${port}/webhooks`,
      events: ['message.received', 'message.delivered'],
    });
    assert.equal(endpoint.status, 201);
    const receiver = runExample('webhook-receiver.ts', {
      SWITCHBOARD_WEBHOOK_SECRET: endpoint.body.secret,
      PORT: String(port),
    });
    children.push(receiver.child);
    await until(() => receiver.out.stderr.includes('listening'), 'the receiver to listen');

    const inbound = await acct.test.post('/v1/sandbox/inbound', {
      from: '+14155550123',
      to: acct.testNumbers[0],
      body: 'Is my order ready?',
    });
    assert.equal(inbound.status, 201);
    const lines = () =>
      receiver.out.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    await until(() => lines().some((l) => l.type === 'message.received'), 'message.received');
    const received = lines().find((l) => l.type === 'message.received');
    assert.equal(received.body, 'Is my order ready?');

    // A redelivery of the same event is acknowledged but not handled twice.
    const log = await acct.test.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
    const delivery = log.body.data.find((d: any) => d.eventId === received.id);
    const retry = await acct.test.post(
      `/v1/webhook_endpoints/${endpoint.body.id}/deliveries/${delivery.id}/retry`,
    );
    assert.equal(retry.status, 202);
    for (let i = 0; i < 50; i++) {
      const again = await acct.test.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
      if (again.body.data.find((d: any) => d.id === delivery.id).attempts.length >= 2) break;
      await sleep(100);
    }
    assert.equal(lines().filter((l) => l.id === received.id).length, 1);

    // A forged delivery is refused.
    const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=00' },
      body: '{}',
    });
    assert.equal(forged.status, 400);
  });

  test('the group text script sends and waits for every receipt', async () => {
    const run = runExample(
      'send-group-text.ts',
      {
        SWITCHBOARD_API_KEY: acct.testKey,
        SWITCHBOARD_BASE_URL: `${t.url}/v1`,
        FROM: acct.testNumbers[0]!,
        TO: '+14155550131,+14155550132',
      },
      ['Team dinner at 7'],
    );
    children.push(run.child);
    const code = await Promise.race([run.exited, sleep(30_000, 'timeout', { ref: false })]);
    assert.equal(code, 0, run.out.stderr);
    assert.match(run.out.stdout, /\+14155550131: delivered/);
    assert.match(run.out.stdout, /\+14155550132: delivered/);
  });

  test('the MCP configurations point at the real entry point', () => {
    const stdio = JSON.parse(readFileSync(join(EXAMPLES, 'mcp', 'claude-desktop.json'), 'utf8'));
    const server = stdio.mcpServers.switchboard;
    assert.deepEqual(server.args.slice(-1), ['mcp']);
    const entry = String(server.args[0]).replace('/ABSOLUTE/PATH/TO/switchboard', ROOT);
    assert.ok(existsSync(entry), `${entry} exists`);
    assert.match(server.env.SWITCHBOARD_API_KEY, /^sk_test_/);
    const http = JSON.parse(readFileSync(join(EXAMPLES, 'mcp', 'http.json'), 'utf8'));
    assert.match(JSON.stringify(http), /\/v1\/mcp/);
    assert.match(JSON.stringify(http), /Authorization/);
  });
});
