import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { assertApiError, assertStoresNothing } from '../support/api-errors.ts';
import { ENGINES } from '../support/engines.ts';
import { rawRequest } from '../support/raw-http.ts';

/** 8 MiB of JSON text once decoded, 32 times the body limit: 8 KiB as sent. */
const BOMB = gzipSync(
  Buffer.concat([Buffer.from('{"phone":"+14155550142","name":"'), Buffer.alloc(8 << 20, 'x')]),
);

for (const engine of ENGINES) {
  describe(`compressed request bodies [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;

    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
    });
    after(() => t.close());

    /**
     * POST /v1/contacts with `body` as given and the encoding named; `holdOpen` sends
     * it in chunks and ends it only once the answer came.
     */
    function postContact(encoding: string, body: Buffer, holdOpen = false) {
      return rawRequest(t.url, {
        method: 'POST',
        path: '/v1/contacts',
        headers: {
          authorization: `Bearer ${acct.testKey}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
        },
        ...(holdOpen ? { chunks: [body], holdOpen } : { body }),
      });
    }

    test('a gzip, deflate, br or identity body is decoded and taken as if sent plain', async () => {
      const encoders: [string, (b: Buffer) => Buffer][] = [
        ['gzip', gzipSync],
        ['deflate', deflateSync],
        ['br', brotliCompressSync],
        ['identity', (b) => b],
        ['GZIP', gzipSync],
        // Encodings applied one after the other are undone in the reverse order.
        ['gzip, br', (b) => brotliCompressSync(gzipSync(b))],
      ];
      for (const [i, [encoding, encode]] of encoders.entries()) {
        const contact = { phone: `+1415555016${i}`, name: `Zip ${encoding}`, company: 'é 📞' };
        const res = await postContact(encoding, encode(Buffer.from(JSON.stringify(contact))));
        assert.equal(res.status, 201, `${encoding}: ${res.text}`);
        assert.deepEqual(
          { phone: res.body.phone, name: res.body.name, company: res.body.company },
          contact,
        );
      }
    });

    test('a body past 256 KiB once decoded (a decompression bomb) is 400 invalid_request and stores nothing', async () => {
      assert.ok(BOMB.length < 64 * 1024, 'small as sent');
      await assertStoresNothing(t.store, async () => {
        const res = await postContact('gzip', BOMB);
        assertApiError(res, 400, 'invalid_request');
        assert.match(res.body.error.message, /too large once decoded/);
      });
    });

    // Bounded: a server that waited for the whole body would never answer.
    test(
      'a decompression bomb is refused once it passes the limit, before the rest of it has arrived',
      { timeout: 60_000 },
      async () => {
        // The bomb's first half (4 MiB decoded), then nothing until the answer came.
        const res = await postContact('gzip', BOMB.subarray(0, BOMB.length / 2), true);
        assertApiError(res, 400, 'invalid_request');
        assert.match(res.body.error.message, /too large once decoded/);
      },
    );

    test('a body that does not decode is 400 invalid_request and stores nothing', async () => {
      const gzipped = gzipSync(Buffer.from('{"phone":"+14155550142"}'));
      const truncated = gzipped.subarray(0, gzipped.length - 6);
      await assertStoresNothing(t.store, async () => {
        for (const [encoding, body] of [
          ['gzip', Buffer.from('{"phone":"+14155550142"}')],
          ['gzip', truncated],
          ['deflate', Buffer.from('not deflate')],
          ['br', Buffer.from([0xff, 0xff, 0xff, 0xff])],
        ] as const) {
          const res = await postContact(encoding, body);
          assertApiError(res, 400, 'invalid_request');
          assert.match(res.body.error.message, new RegExp(`not valid ${encoding}`));
        }
      });
    });

    test('any other Content-Encoding is 415 invalid_request naming Content-Encoding and the accepted ones, and stores nothing', async () => {
      await assertStoresNothing(t.store, async () => {
        for (const encoding of ['compress', 'zstd', 'gzip, snappy', 'x-unknown']) {
          const body = Buffer.from('{"phone":"+14155550142"}');
          const res = await postContact(encoding, body);
          assertApiError(res, 415, 'invalid_request', 'Content-Encoding');
          assert.match(res.body.error.message, /gzip, deflate, br or identity/);
        }
      });
    });
  });
}
