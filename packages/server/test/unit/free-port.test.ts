// The ports tests give their child servers: none the kernel could hand to another process
// between the choice and the child's listen.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createSocket } from 'node:dgram';
import { CHOSEN_PORTS, freePort, portFree } from '../support/processes.ts';

describe('ports for child servers', () => {
  test('a chosen port lies below the kernel ephemeral range, so no listen(0) or outgoing connection takes it meanwhile', async () => {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    assert.ok(CHOSEN_PORTS.high < low!, `${CHOSEN_PORTS.high} < ${low}`);
    for (let i = 0; i < 50; i++) {
      const port = await freePort();
      assert.ok(port >= CHOSEN_PORTS.low && port <= CHOSEN_PORTS.high, String(port));
    }
  });
  test('a port another process holds on UDP alone is not free: a sipp peer would not bind it', async () => {
    const port = await freePort();
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
    try {
      assert.equal(await portFree(port), false);
    } finally {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    }
    assert.equal(await portFree(port), true);
  });
});
