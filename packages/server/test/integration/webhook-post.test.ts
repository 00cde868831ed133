// The HTTP part of one attempt (postWebhook) against a real local server through a real
// undici pool: the bound on the whole attempt, and what is kept of an answer cut short.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { postWebhook } from '../../src/delivery/post-webhook.ts';
import { newAgent } from '../../src/delivery/undici-parts.ts';

describe('a webhook POST', () => {
  let server: Server;
  let base: string;
  /** Answers left open by the server, ended when the suite ends. */
  const open = new Set<ServerResponse>();

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      open.add(res);
      if (req.url === '/half-character') {
        // The first byte of "é" (0xC3 0xA9), then nothing more.
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.write(Buffer.from([0x6f, 0x6b, 0x20, 0xc3]));
      }
      // '/hang' never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const res of open) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (agent: ReturnType<typeof newAgent>, path: string, timeoutMs: number) =>
    postWebhook({
      url: `${base}${path}`,
      body: '{}',
      headers: { 'content-type': 'application/json' },
      dispatcher: agent,
      timeoutMs,
    });

  test('an attempt waiting for a connection of a busy pool ends at its timeout', async () => {
    const agent = newAgent({ connections: 1 });
    try {
      // Holds the pool's only connection for far longer than the second attempt may take.
      const holding = post(agent, '/hang', 60_000);
      const queued = await post(agent, '/hang', 100);
      assert.equal(queued.error, 'timeout');
      assert.ok(queued.durationMs < 5000, `ended after ${queued.durationMs} ms`);
      await agent.destroy();
      assert.ok((await holding).error, 'the holding attempt ends with the pool');
    } finally {
      await agent.destroy().catch(() => {});
    }
  });

  test('an answer cut off inside a character keeps the whole characters before it', async () => {
    const agent = newAgent({ connections: 1 });
    try {
      const result = await post(agent, '/half-character', 200);
      assert.equal(result.status, 200);
      assert.equal(result.excerpt, 'ok ');
    } finally {
      await agent.destroy();
    }
  });
});
