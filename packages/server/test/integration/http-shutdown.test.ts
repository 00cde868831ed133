// The HTTP side of a graceful shutdown: new requests are 503 in the error shape, requests in
// flight complete with Connection: close.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`graceful shutdown [${engine}]`, () => {
    /** A raw connection, to hold a request half-sent across the start of shutdown. */
    async function openSocket(url: string) {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (d: string) => (received += d));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      return { socket, closed, received: () => received };
    }

    /** Splits one raw HTTP/1.1 response into status, lower-cased headers and JSON body. */
    function parseResponse(raw: string) {
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => {
          const i = line.indexOf(':');
          return [line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim()] as const;
        }),
      );
      return {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: JSON.parse(body || 'null'),
      };
    }

    test('a request that arrives while the server shuts down is 503 service_unavailable in the error shape', async () => {
      const t = await startTestApp(engine, { background: false });
      const acct = await t.newAccount();
      let closing: Promise<void> | null = null;
      let conn: Awaited<ReturnType<typeof openSocket>> | null = null;
      try {
        conn = await openSocket(t.url);
        // The request has begun (so the connection is not idle) but is not complete.
        conn.socket.write('GET /v1/contacts/ct_x HTTP/1.1\r\nHost: localhost\r\n');
        await sleep(100);
        closing = t.close();
        await sleep(100);
        conn.socket.write(`Authorization: Bearer ${acct.testKey}\r\n\r\n`);
        await Promise.race([conn.closed, sleep(5_000)]);
        const res = parseResponse(conn.received());
        assert.equal(res.status, 503, conn.received());
        assert.deepEqual(Object.keys(res.body), ['error']);
        assert.equal(res.body.error.type, 'service_unavailable');
        assert.deepEqual(Object.keys(res.body.error).sort(), ['message', 'type']);
        assert.match(res.headers.get('request-id') ?? '', /^req_/);
        assert.equal(res.headers.get('connection'), 'close');
      } finally {
        // Hanging up ends the connection, so a failed test never waits out a keep-alive.
        conn?.socket.destroy();
        await (closing ?? t.close());
      }
    });

    test('a request in flight when shutdown starts completes, with Connection: close so shutdown never waits on keep-alive', async () => {
      const t = await startTestApp(engine, { background: false });
      const acct = await t.newAccount();
      let closing: Promise<void> | null = null;
      let conn: Awaited<ReturnType<typeof openSocket>> | null = null;
      try {
        conn = await openSocket(t.url);
        const body = JSON.stringify({ phone: '+14155550170' });
        conn.socket.write(
          [
            'POST /v1/contacts HTTP/1.1',
            'Host: localhost',
            'Connection: keep-alive',
            `Authorization: Bearer ${acct.testKey}`,
            'Content-Type: application/json',
            `Content-Length: ${Buffer.byteLength(body)}`,
            '',
            body.slice(0, 4),
          ].join('\r\n'),
        );
        await sleep(100);
        let closed = false;
        closing = t.close().then(() => {
          closed = true;
        });
        await sleep(100);
        assert.equal(closed, false, 'shutdown waits for the request in flight');
        conn.socket.write(body.slice(4));
        await Promise.race([conn.closed, sleep(5_000)]);
        const res = parseResponse(conn.received());
        assert.equal(res.status, 201, conn.received());
        assert.equal(res.body.phone, '+14155550170');
        assert.equal(res.headers.get('connection'), 'close');
        const finished = await Promise.race([closing.then(() => true), sleep(5_000)]);
        assert.equal(finished, true, 'shutdown completes once the request is answered');
      } finally {
        // Hanging up ends the connection, so a failed test never waits out a keep-alive.
        conn?.socket.destroy();
        await (closing ?? t.close());
      }
    });
  });
}
