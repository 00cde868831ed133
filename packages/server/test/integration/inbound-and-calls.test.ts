import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { TestResponse } from '../support/http.ts';
import { assertNothingStored, eventsOf, phoneNumbers } from '../support/messaging.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`inbound texts through the sandbox [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let ours: string;
    const phone = phoneNumbers('512');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount();
      ours = acct.testNumbers[0]!;
    });
    after(() => t.close());

    async function inbound(input: Record<string, unknown>): Promise<TestResponse> {
      const res = await acct.test.post('/v1/sandbox/inbound', { to: ours, ...input });
      assert.equal(res.status, 201, res.text);
      return res;
    }

    test('an inbound text answers 201 with an inbound, delivered message in a cv_ conversation', async () => {
      const from = phone();
      const res = await inbound({ from, body: 'Hi, are you open today?' });
      const m = res.body;
      assert.match(m.id, /^msg_/);
      assert.equal(m.object, 'message');
      assert.equal(m.direction, 'inbound');
      assert.equal(m.status, 'delivered');
      assert.equal(m.from, from);
      assert.equal(m.to, ours);
      assert.equal(m.body, 'Hi, are you open today?');
      assert.match(m.conversationId, /^cv_/);
      assert.deepEqual(m.media, []);
      assert.equal(m.failureReason, null);
      assert.match(m.createdAt, ISO_UTC);
      const fetched = await acct.test.get(`/v1/messages/${m.id}`);
      assert.equal(fetched.status, 200);
      assert.deepEqual(fetched.body, m);
    });

    test('an inbound text records exactly one message.received carrying the message', async () => {
      const res = await inbound({
        from: phone(),
        body: 'photo attached',
      });
      const events = (
        await eventsOf(t.store.db, acct.accountId, 'test', 'message.received')
      ).filter((e) => e.data.id === res.body.id);
      assert.equal(events.length, 1);
      assert.match(events[0]!.id, /^evt_/);
      assert.deepEqual(events[0]!.data, res.body);
      assert.equal(events[0]!.data.conversationId, res.body.conversationId);
    });

    test('a reply from a one-to-one recipient lands in the conversation of the outbound message', async () => {
      const customer = phone();
      const sent = await acct.test.post('/v1/messages', {
        from: ours,
        to: customer,
        body: 'Your order is ready',
      });
      assert.equal(sent.status, 201);
      const reply = await inbound({ from: customer, body: 'Thanks!' });
      assert.equal(reply.body.conversationId, sent.body.conversationId);
      // …and the next outbound message continues that same thread.
      const again = await acct.test.post('/v1/messages', {
        from: ours,
        to: customer,
        body: 'You are welcome',
      });
      assert.equal(again.body.conversationId, sent.body.conversationId);
    });

    test('a first text from a new number opens a thread that a later send continues', async () => {
      const stranger = phone();
      const first = await inbound({ from: stranger, body: 'Hello?' });
      const answer = await acct.test.post('/v1/messages', {
        from: ours,
        to: stranger,
        body: 'Hi!',
      });
      assert.equal(answer.body.conversationId, first.body.conversationId);
    });

    test('a text to another of the account numbers is another thread', async () => {
      const customer = phone();
      const one = await inbound({ from: customer, body: 'to line one' });
      const two = await inbound({ from: customer, to: acct.testNumbers[1], body: 'to line two' });
      assert.notEqual(two.body.conversationId, one.body.conversationId);
    });

    test('a reply from a group participant lands in the group conversation', async () => {
      const [a, b] = [phone(), phone()];
      const group = await acct.test.post('/v1/messages', {
        from: ours,
        to: [a, b],
        body: 'Team dinner Friday?',
      });
      assert.equal(group.status, 201);
      const reply = await inbound({ from: b, body: 'Count me in' });
      assert.equal(reply.body.conversationId, group.body.conversationId);
    });

    test('a to that is not one of the account numbers is 422 with param to, storing nothing', async () => {
      const other = await t.newAccount('Other');
      for (const to of ['+14155550000', other.testNumbers[0]]) {
        const res = await assertNothingStored(t.store.db, acct.accountId, () =>
          acct.test.post('/v1/sandbox/inbound', { from: phone(), to, body: 'hi' }),
        );
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, 'to');
      }
    });

    test('a non-E.164 from is 422 with param from', async () => {
      const res = await acct.test.post('/v1/sandbox/inbound', {
        from: '555-0100',
        to: ours,
        body: 'x',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'from');
    });

    test('an inbound text with neither body nor media is 422 with param body', async () => {
      const res = await acct.test.post('/v1/sandbox/inbound', {
        from: phone(),
        to: ours,
        body: '  ',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'body');
    });

    test('a live key gets 404 on both sandbox triggers', async () => {
      const text = await acct.live.post('/v1/sandbox/inbound', {
        from: phone(),
        to: ours,
        body: 'x',
      });
      assert.equal(text.status, 404);
      assert.equal(text.body.error.type, 'not_found');
      const call = await acct.live.post('/v1/sandbox/calls', {
        from: phone(),
        to: ours,
        outcome: 'completed',
        duration: 5,
      });
      assert.equal(call.status, 404);
      assert.equal(call.body.error.type, 'not_found');
    });
  });

  describe(`calls through the sandbox, and caller ID [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let ours: string;
    const phone = phoneNumbers('702');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount();
      ours = acct.testNumbers[0]!;
    });
    after(() => t.close());

    async function call(input: Record<string, unknown>): Promise<TestResponse> {
      const res = await acct.test.post('/v1/sandbox/calls', { to: ours, ...input });
      assert.equal(res.status, 201, res.text);
      return res;
    }

    async function callEvents(type: string, id: string) {
      return (await eventsOf(t.store.db, acct.accountId, 'test', type)).filter(
        (e) => e.data.id === id,
      );
    }

    test('a completed call answers 201 with the call summary and records call.completed', async () => {
      const from = phone();
      const res = await call({ from, outcome: 'completed', duration: 42 });
      const c = res.body;
      assert.match(c.id, /^call_/);
      assert.equal(c.from, from);
      assert.equal(c.to, ours);
      assert.equal(c.direction, 'inbound');
      assert.equal(c.status, 'completed');
      assert.equal(c.duration, 42);
      assert.match(c.startedAt, ISO_UTC);
      // The call ended now, so it started its duration ago.
      const startedAgo = Date.now() - Date.parse(c.startedAt);
      assert.ok(startedAgo >= 41_000 && startedAgo < 60_000, `started ${startedAgo} ms ago`);
      const events = await callEvents('call.completed', c.id);
      assert.equal(events.length, 1);
      assert.deepEqual(events[0]!.data, c);
      assert.deepEqual(await callEvents('call.missed', c.id), []);
    });

    test('a missed call answers 201 with status missed, duration 0, and records call.missed', async () => {
      const res = await call({ from: phone(), outcome: 'missed' });
      assert.equal(res.body.status, 'missed');
      assert.equal(res.body.duration, 0);
      const events = await callEvents('call.missed', res.body.id);
      assert.equal(events.length, 1);
      assert.deepEqual(events[0]!.data, res.body);
      assert.deepEqual(await callEvents('call.completed', res.body.id), []);
    });

    test('an outbound call is placed from one of the account numbers', async () => {
      const to = phone();
      const res = await acct.test.post('/v1/sandbox/calls', {
        from: ours,
        to,
        direction: 'outbound',
        outcome: 'completed',
        duration: 7,
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.direction, 'outbound');
      assert.equal(res.body.from, ours);
      assert.equal(res.body.to, to);
    });

    test('an outbound call nobody answered is call.completed with status missed: call.missed is for inbound calls that rang out', async () => {
      const res = await acct.test.post('/v1/sandbox/calls', {
        from: ours,
        to: phone(),
        direction: 'outbound',
        outcome: 'missed',
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'missed');
      assert.deepEqual(await callEvents('call.missed', res.body.id), []);
      const completed = await callEvents('call.completed', res.body.id);
      assert.equal(completed.length, 1);
      assert.deepEqual(completed[0]!.data, res.body);
    });

    test('a missed call with a duration is 422 with param duration', async () => {
      const res = await acct.test.post('/v1/sandbox/calls', {
        from: phone(),
        to: ours,
        outcome: 'missed',
        duration: 3,
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'duration');
    });

    test('an outcome that is not one of the two is 422 naming both', async () => {
      for (const outcome of ['answered', 7]) {
        const res = await acct.test.post('/v1/sandbox/calls', { from: phone(), to: ours, outcome });
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.error.param, 'outcome');
        assert.equal(res.body.error.message, 'outcome must be one of "completed", "missed".');
      }
    });

    test('an inbound call to a number the account does not own is 422 with param to', async () => {
      const res = await acct.test.post('/v1/sandbox/calls', {
        from: phone(),
        to: '+14155550000',
        outcome: 'completed',
        duration: 1,
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'to');
    });

    test('caller ID: an inbound text and an inbound call store the newest contact with that phone', async () => {
      const other = await t.newAccount('Other');
      // Several numbers, each with contacts made back to back (often within one millisecond).
      for (let i = 0; i < 8; i++) {
        const caller = phone();
        const contacts: string[] = [];
        for (const name of ['Oldest', 'Older', 'Newest']) {
          const res = await acct.test.post('/v1/contacts', { phone: caller, name });
          assert.equal(res.status, 201, res.text);
          contacts.push(res.body.id);
        }
        // A same-phone contact elsewhere must not win: another mode, another account.
        await acct.live.post('/v1/contacts', { phone: caller, name: 'Live twin' });
        await other.test.post('/v1/contacts', { phone: caller, name: 'Other account' });

        const text = await acct.test.post('/v1/sandbox/inbound', {
          from: caller,
          to: ours,
          body: 'It is me',
        });
        assert.equal(text.status, 201);
        const message = await t.store.db
          .selectFrom('messages')
          .select('contact_id')
          .where('id', '=', text.body.id)
          .executeTakeFirstOrThrow();
        assert.equal(message.contact_id, contacts[2], 'the text names the newest contact');

        const rang = await call({ from: caller, outcome: 'missed' });
        const callRow = await t.store.db
          .selectFrom('calls')
          .select('contact_id')
          .where('id', '=', rang.body.id)
          .executeTakeFirstOrThrow();
        assert.equal(callRow.contact_id, contacts[2], 'the call names the newest contact');
      }
    });

    test('caller ID: a number without a contact stores none', async () => {
      const stranger = phone();
      const text = await acct.test.post('/v1/sandbox/inbound', {
        from: stranger,
        to: ours,
        body: 'who dis',
      });
      const rang = await call({ from: stranger, outcome: 'completed', duration: 3 });
      const message = await t.store.db
        .selectFrom('messages')
        .select('contact_id')
        .where('id', '=', text.body.id)
        .executeTakeFirstOrThrow();
      const callRow = await t.store.db
        .selectFrom('calls')
        .select('contact_id')
        .where('id', '=', rang.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(message.contact_id, null);
      assert.equal(callRow.contact_id, null);
    });

    test('caller ID for an outbound call resolves the number called', async () => {
      const callee = phone();
      const contact = await acct.test.post('/v1/contacts', { phone: callee, name: 'Callee' });
      const res = await acct.test.post('/v1/sandbox/calls', {
        from: ours,
        to: callee,
        direction: 'outbound',
        outcome: 'completed',
        duration: 12,
      });
      assert.equal(res.status, 201, res.text);
      const row = await t.store.db
        .selectFrom('calls')
        .select('contact_id')
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.contact_id, contact.body.id);
    });
  });
}
