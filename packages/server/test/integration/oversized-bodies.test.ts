import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { closesWithin, openConnection, parseResponse } from '../support/raw-socket.ts';

/**
 * Bodies per run, over fresh connections, from 5 to 8 MiB. On loopback a client
 * can hand about 4 MiB to its kernel (the send buffer's most, tcp_wmem) before the
 * server reads anything, and then never notices a reset; past that it is still
 * writing when the server closes, as a client over a real network is with far
 * smaller bodies. Before bodies were drained, every one of these was reset.
 */
const BODIES = 30;
const MIB = 1024 * 1024;

/** The whole body of one oversized request, written at once, as a fast client does. */
function oversizedBody(size: number, chunked: boolean): Buffer {
  const json = Buffer.alloc(size, 'x');
  json.write('{"phone":"+14155550142","name":"');
  if (!chunked) return json;
  // Chunks of 64 KiB, as a streaming client sends them.
  const parts: Buffer[] = [];
  for (let at = 0; at < json.length; at += 64 * 1024) {
    const chunk = json.subarray(at, at + 64 * 1024);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

for (const engine of ENGINES) {
  describe(`bodies over the limit [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
    });
    after(() => t.close());

    /** Sends one oversized POST over a new connection; returns what came back and how it closed. */
    async function sendOversized(size: number, chunked: boolean) {
      const connection = await openConnection(t.url);
      const head = [
        'POST /v1/contacts HTTP/1.1',
        `Host: ${new URL(t.url).host}`,
        `Authorization: Bearer ${acct.testKey}`,
        'Content-Type: application/json',
        chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`,
        '',
        '',
      ].join('\r\n');
      connection.socket.write(head);
      connection.socket.write(oversizedBody(size, chunked));
      const closed = await closesWithin(connection, 20_000);
      const { error } = await connection.closed;
      return { closed, error, response: connection.received() };
    }

    for (const chunked of [false, true]) {
      const framing = chunked ? 'chunked' : 'with a Content-Length';
      test(`a body over 256 KiB (${framing}) is always answered 400 invalid_request, never reset`, async () => {
        const failures: string[] = [];
        for (let i = 0; i < BODIES; i++) {
          const size = 5 * MIB + Math.floor((i / (BODIES - 1)) * 3 * MIB);
          const { closed, error, response } = await sendOversized(size, chunked);
          const parsed = parseResponse(response);
          if (
            error !== null ||
            !closed ||
            parsed.status !== 400 ||
            parsed.body?.error?.type !== 'invalid_request'
          ) {
            failures.push(
              `${size} bytes: ${error ?? (closed ? 'closed' : 'still open')}, ` +
                `got ${JSON.stringify(response.slice(0, 120))}`,
            );
          }
        }
        assert.deepEqual(failures, [], `${failures.length} of ${BODIES} not answered cleanly`);
      });
    }
  });
}
