import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addNumber } from '../../src/commands/add-number.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { TestResponse } from '../support/http.ts';
import { assertNothingStored, phoneNumbers } from '../support/messaging.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`POST /v1/messages: validation [${engine}]`, () => {
    let t: TestApp;
    /** Only ever sends that must be rejected, so its stored rows never change. */
    let acct: TestAccount;
    let other: TestAccount;
    let from: string;
    const phone = phoneNumbers('312');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('Rejections');
      other = await t.newAccount('Other');
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());

    /**
     * Sends `body` and asserts a 422 of `type` naming `param`, with nothing
     * stored: no message, recipient, queued submission, conversation or event.
     */
    async function rejects(
      body: unknown,
      param: string,
      { client = acct.test, type = 'validation_error' } = {},
    ): Promise<TestResponse> {
      const res = await assertNothingStored(t.store.db, acct.accountId, () =>
        client.post('/v1/messages', body),
      );
      assert.equal(res.status, 422, `expected 422, got ${res.status}: ${res.text}`);
      assert.equal(res.body.error.type, type, res.text);
      assert.equal(res.body.error.param, param, res.text);
      assert.equal(typeof res.body.error.message, 'string');
      return res;
    }

    test('a non-E.164 from is 422 with param from', async () => {
      for (const bad of ['4155550100', '+1 415 555 0100', 'tel:+14155550100', '+0123456789']) {
        await rejects({ from: bad, to: phone(), body: 'hi' }, 'from');
      }
    });

    test('a non-E.164 to string is 422 with param to', async () => {
      for (const bad of ['5551234', '+1415', '(415) 555-0100', '']) {
        await rejects({ from, to: bad, body: 'hi' }, 'to');
      }
    });

    test('a non-E.164 element of a to array is 422 naming its index', async () => {
      await rejects({ from, to: [phone(), 'not-a-number'], body: 'hi' }, 'to[1]');
      await rejects({ from, to: ['+1 312 555 0000', phone()], body: 'hi' }, 'to[0]');
    });

    test('a from that is not provisioned anywhere is 422 with param from', async () => {
      await rejects({ from: '+14155550000', to: phone(), body: 'hi' }, 'from');
    });

    test("a from that is another account's number is 422 with param from", async () => {
      await rejects({ from: other.testNumbers[0], to: phone(), body: 'hi' }, 'from');
    });

    test('a live key cannot send from a test number (422 param from)', async () => {
      await rejects({ from, to: phone(), body: 'hi' }, 'from', { client: acct.live });
    });

    test('a missing to is 422 with param to', async () => {
      await rejects({ from, body: 'hi' }, 'to');
    });

    test('an empty to array is 422 with param to', async () => {
      await rejects({ from, to: [], body: 'hi' }, 'to');
    });

    test('a missing from is 422 with param from', async () => {
      await rejects({ to: phone(), body: 'hi' }, 'from');
    });

    test('an empty body is 422 with param body', async () => {
      await rejects({ from, to: phone(), body: '' }, 'body');
    });

    test('a whitespace-only body is 422 with param body', async () => {
      await rejects({ from, to: phone(), body: ' \n\t  ' }, 'body');
    });

    test('an omitted body without mediaUrls is 422 with param body', async () => {
      await rejects({ from, to: phone() }, 'body');
      await rejects({ from, to: phone(), mediaUrls: [] }, 'body');
    });

    test('a body of 1601 characters is 422 with param body', async () => {
      await rejects({ from, to: phone(), body: 'a'.repeat(1601) }, 'body');
      // Characters are code points: 1601 emoji are over the limit too.
      await rejects({ from, to: phone(), body: '😀'.repeat(1601) }, 'body');
    });

    test('more than 10 mediaUrls is 422 with param mediaUrls', async () => {
      const mediaUrls = Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.jpg`);
      await rejects({ from, to: phone(), body: 'pics', mediaUrls }, 'mediaUrls');
    });

    test('an http:// media URL is 422 naming its index', async () => {
      await rejects(
        { from, to: phone(), mediaUrls: ['http://cdn.example.com/a.jpg'] },
        'mediaUrls[0]',
      );
      await rejects(
        {
          from,
          to: phone(),
          body: 'x',
          mediaUrls: ['https://cdn.example.com/a.jpg', 'http://cdn.example.com/b.jpg'],
        },
        'mediaUrls[1]',
      );
    });

    test('to equal to from is 422 (param to, or to[i] in an array)', async () => {
      await rejects({ from, to: from, body: 'hi' }, 'to');
      await rejects({ from, to: [phone(), from], body: 'hi' }, 'to[1]');
    });

    test('a number listed twice in a to array is 422 naming the repeat', async () => {
      const a = phone();
      await rejects({ from, to: [a, phone(), a], body: 'hi' }, 'to[2]');
    });

    test('more than 10 recipients is 422 with param to', async () => {
      const to = Array.from({ length: 11 }, () => phone());
      await rejects({ from, to, body: 'hi' }, 'to');
    });

    test('the unknown field text (for body) is 422 with param text', async () => {
      await rejects({ from, to: phone(), text: 'hello' }, 'text');
      await rejects({ from, to: phone(), body: 'hello', text: 'hello' }, 'text');
    });

    test('conversationId together with to is 422 with param to', async () => {
      // A group of this account, written directly so that no send (and no later receipt) is involved.
      const conversationId = `cv_reject${Date.now()}`;
      await t.store.write(async (tx) => {
        await tx.db
          .insertInto('conversations')
          .values({
            id: conversationId,
            account_id: acct.accountId,
            mode: 'test',
            kind: 'group',
            account_phone: from,
            peer_phone: null,
            created_at: Date.now(),
            last_message_at: Date.now(),
            unread_count: 0,
          })
          .execute();
      });
      await rejects({ from, to: phone(), conversationId, body: 'hi' }, 'to');
    });

    test('an unknown conversationId is 422 with param conversationId', async () => {
      await rejects({ from, conversationId: 'cv_doesnotexist', body: 'hi' }, 'conversationId');
    });

    test("another account's conversationId is 422 with param conversationId", async () => {
      const group = await other.test.post('/v1/messages', {
        from: other.testNumbers[0],
        to: [phone(), phone()],
        body: 'theirs',
      });
      assert.equal(group.status, 201);
      await rejects(
        { from, conversationId: group.body.conversationId, body: 'hi' },
        'conversationId',
      );
    });

    test('addParticipants or removeParticipants without conversationId is 422 naming the field', async () => {
      await rejects(
        { from, to: [phone(), phone()], addParticipants: [phone()], body: 'hi' },
        'addParticipants',
      );
      await rejects(
        { from, to: [phone(), phone()], removeParticipants: [phone()], body: 'hi' },
        'removeParticipants',
      );
    });

    test('a field of the wrong type is 422 naming it, never coerced', async () => {
      await rejects({ from, to: phone(), body: 42 }, 'body');
      await rejects({ from, to: 13125550000, body: 'hi' }, 'to');
    });

    test('a to that is neither one number nor a list of them says which it may be', async () => {
      const said = async (to: unknown, param: string) =>
        (await rejects({ from, to, body: 'hi' }, param)).body.error.message;
      assert.equal(await said(13125550000, 'to'), 'to must be a string or an array.');
      assert.equal(await said([], 'to'), 'to must list at least 1 item.');
      const eleven = Array.from({ length: 11 }, () => phone());
      assert.equal(await said(eleven, 'to'), 'to must list at most 10 items.');
      assert.equal(await said([phone(), 42], 'to[1]'), 'to[1] must be a string.');
    });
  });

  describe(`POST /v1/messages: accepted sends [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let from: string;
    const phone = phoneNumbers('415');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('Sender');
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());

    async function send(input: Record<string, unknown>): Promise<TestResponse> {
      const res = await acct.test.post('/v1/messages', { from, to: phone(), ...input });
      assert.equal(res.status, 201, res.text);
      return res;
    }

    test('a send answers 201 with a queued outbound message record', async () => {
      const to = phone();
      const res = await acct.test.post('/v1/messages', { from, to, body: 'Hello there' });
      assert.equal(res.status, 201);
      const m = res.body;
      assert.match(m.id, /^msg_[0-9A-Za-z]+$/);
      assert.equal(m.object, 'message');
      assert.equal(m.status, 'queued');
      assert.equal(m.direction, 'outbound');
      assert.match(m.conversationId, /^cv_[0-9A-Za-z]+$/);
      assert.equal(m.from, from);
      assert.equal(m.to, to);
      assert.equal(m.body, 'Hello there');
      assert.equal(m.segments, 1);
      assert.deepEqual(m.media, []);
      assert.equal(m.senderName, null);
      assert.equal(m.failureReason, null);
      assert.equal(m.participants, undefined, 'a one-to-one message has no participants');
      assert.match(m.createdAt, ISO_UTC);
      assert.ok(Math.abs(Date.parse(m.createdAt) - Date.now()) < 60_000);
    });

    test('senderName is kept on the message', async () => {
      const res = await send({ body: 'From the team', senderName: 'Grace' });
      assert.equal(res.body.senderName, 'Grace');
    });

    test('a body of exactly 1600 characters is accepted (11 GSM-7 segments)', async () => {
      const res = await send({ body: 'a'.repeat(1600) });
      assert.equal(res.body.segments, 11);
      assert.equal(res.body.body.length, 1600);
    });

    test('surrounding whitespace does not count toward the 1600 limit', async () => {
      await send({ body: `  ${'a'.repeat(1600)}  ` });
    });

    test('body may be omitted when mediaUrls is given (MMS, one segment, media with types)', async () => {
      const res = await send({
        mediaUrls: ['https://cdn.example.com/photo.jpg', 'https://cdn.example.com/clip.mp4?x=1'],
      });
      assert.equal(res.body.body, '');
      assert.equal(res.body.segments, 1);
      assert.deepEqual(res.body.media, [
        { url: 'https://cdn.example.com/photo.jpg', contentType: 'image/jpeg' },
        { url: 'https://cdn.example.com/clip.mp4?x=1', contentType: 'video/mp4' },
      ]);
    });

    test('an MMS with a long body is still one message', async () => {
      const res = await send({
        body: 'a'.repeat(500),
        mediaUrls: Array.from({ length: 10 }, (_, i) => `https://cdn.example.com/${i}.png`),
      });
      assert.equal(res.body.segments, 1);
      assert.equal(res.body.media.length, 10);
    });

    test('GSM-7 segments: 160 is 1, 161 is 2, 306 is 2, 307 is 3', async () => {
      for (const [length, segments] of [
        [1, 1],
        [160, 1],
        [161, 2],
        [306, 2],
        [307, 3],
        [459, 3],
        [460, 4],
      ] as const) {
        const res = await send({ body: 'x'.repeat(length) });
        assert.equal(res.body.segments, segments, `${length} GSM-7 characters`);
      }
    });

    test('GSM-7 extension characters count double', async () => {
      const vectors: [string, number][] = [
        ['€'.repeat(80), 1], // 160 septets
        ['€'.repeat(81), 2], // 162 septets
        [`${'a'.repeat(159)}{`, 2], // 161 septets
        [`${'a'.repeat(158)}^`, 1], // 160 septets
        ['[]'.repeat(40), 1], // 160 septets
        // 306 septets would fit two parts of 153, but the escape pair may not straddle them.
        [`${'a'.repeat(152)}€${'a'.repeat(152)}`, 3],
      ];
      for (const [body, segments] of vectors) {
        const res = await send({ body });
        assert.equal(res.body.segments, segments, JSON.stringify(body.slice(-3)));
      }
    });

    test('UCS-2 segments: 70 units is 1, 71 is 2 (an emoji is two units)', async () => {
      const vectors: [string, number][] = [
        [`${'a'.repeat(68)}😀`, 1], // 70 UTF-16 units
        [`${'a'.repeat(69)}😀`, 2], // 71 units
        ['ж'.repeat(70), 1],
        ['ж'.repeat(71), 2],
        ['ж'.repeat(134), 2],
        ['ж'.repeat(135), 3],
        ['😀'.repeat(35), 1],
        ['😀'.repeat(36), 2],
      ];
      for (const [body, segments] of vectors) {
        const res = await send({ body });
        assert.equal(res.body.segments, segments, `${body.length} UTF-16 units`);
      }
    });

    test('an array of one recipient is a one-to-one send in the same thread as the plain string', async () => {
      const to = phone();
      const plain = await acct.test.post('/v1/messages', { from, to, body: 'plain' });
      const listed = await acct.test.post('/v1/messages', { from, to: [to], body: 'listed' });
      assert.equal(listed.status, 201);
      assert.equal(listed.body.to, to);
      assert.equal(listed.body.participants, undefined);
      assert.equal(listed.body.conversationId, plain.body.conversationId);
    });

    test('every send to the same number from the same number continues one conversation', async () => {
      const to = phone();
      const first = await send({ to, body: 'one' });
      const second = await send({ to, body: 'two' });
      assert.equal(second.body.conversationId, first.body.conversationId);
      assert.notEqual(second.body.id, first.body.id);
      const fromOther = await acct.test.post('/v1/messages', {
        from: acct.testNumbers[1],
        to,
        body: 'three',
      });
      assert.notEqual(
        fromOther.body.conversationId,
        first.body.conversationId,
        'another account number is another thread',
      );
    });

    test('concurrent first sends to a new recipient create exactly one conversation', async () => {
      const to = phone();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          acct.test.post('/v1/messages', { from, to, body: `race ${i}` }),
        ),
      );
      for (const res of results) assert.equal(res.status, 201, res.text);
      const ids = new Set(results.map((r) => r.body.conversationId));
      assert.equal(ids.size, 1, `one conversation, got ${[...ids].join(', ')}`);
      assert.equal(new Set(results.map((r) => r.body.id)).size, 8, 'eight messages');
      const rows = await t.store.db
        .selectFrom('conversations')
        .select('id')
        .where('account_id', '=', acct.accountId)
        .where('account_phone', '=', from)
        .where('peer_phone', '=', to)
        .execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        [...ids],
      );
    });

    test('a live key sends from a live number, and its live message is invisible to the test key', async () => {
      const liveNumber = '+13125559876';
      await t.store.write((tx) =>
        addNumber(
          tx,
          { accountId: acct.accountId, mode: 'live', phone: liveNumber },
          { clock: { now: () => Date.now() } },
        ),
      );
      const res = await acct.live.post('/v1/messages', {
        from: liveNumber,
        to: phone(),
        body: 'live',
      });
      assert.equal(res.status, 201, res.text);
      assert.equal((await acct.test.get(`/v1/messages/${res.body.id}`)).status, 404);
      // …and a test key may not send from it.
      const fromTest = await acct.test.post('/v1/messages', {
        from: liveNumber,
        to: phone(),
        body: 'x',
      });
      assert.equal(fromTest.status, 422);
      assert.equal(fromTest.body.error.param, 'from');
    });
  });
}
