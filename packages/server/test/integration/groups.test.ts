import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { TestResponse } from '../support/http.ts';
import { assertNothingStored, phoneNumbers, waitForMessage } from '../support/messaging.ts';

const INVALID_NUMBER = '+15005550001';
const CARRIER_REJECTED = '+15005550002';
const NEVER_DELIVERED = '+15005550003';

const sorted = (phones: string[]) => phones.toSorted();
const byPhone = (participants: { phone: string; status: string }[]) =>
  participants.toSorted((x, y) => (x.phone < y.phone ? -1 : 1));

for (const engine of ENGINES) {
  describe(`group conversations [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let from: string;
    const phone = phoneNumbers('206');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount();
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());

    async function send(input: Record<string, unknown>): Promise<TestResponse> {
      const res = await acct.test.post('/v1/messages', { from, body: 'group', ...input });
      assert.equal(res.status, 201, res.text);
      return res;
    }

    /** The numbers that got a submission of `messageId`: who the carrier was asked to deliver to. */
    async function recipientsOf(messageId: string): Promise<string[]> {
      const rows = await t.store.db
        .selectFrom('message_recipients')
        .select('phone')
        .where('message_id', '=', messageId)
        .execute();
      return sorted(rows.map((r) => r.phone));
    }

    test('an array of several numbers opens a group: to array, participants and a cv_ id', async () => {
      const members = [phone(), phone(), phone()];
      const res = await send({ to: members, body: 'Welcome, all' });
      const m = res.body;
      assert.equal(m.object, 'message');
      assert.equal(m.direction, 'outbound');
      assert.equal(m.status, 'queued');
      assert.match(m.conversationId, /^cv_/);
      assert.ok(Array.isArray(m.to));
      assert.deepEqual(sorted(m.to), sorted(members));
      assert.deepEqual(
        byPhone(m.participants),
        sorted(members).map((p) => ({ phone: p, status: 'queued' })),
      );
      assert.deepEqual(await recipientsOf(m.id), sorted(members));
    });

    test('GET of a group message shows its participants', async () => {
      const members = [phone(), phone()];
      const res = await send({ to: members });
      const fetched = await acct.test.get(`/v1/messages/${res.body.id}`);
      assert.equal(fetched.status, 200);
      assert.deepEqual(sorted(fetched.body.to), sorted(members));
      assert.deepEqual(sorted(fetched.body.participants.map((p: any) => p.phone)), sorted(members));
    });

    test('each array send opens its own group, even with the same members', async () => {
      const members = [phone(), phone()];
      const first = await send({ to: members });
      const second = await send({ to: members });
      assert.notEqual(second.body.conversationId, first.body.conversationId);
    });

    test('a send with conversationId continues the group: same id, same participants', async () => {
      const members = [phone(), phone(), phone()];
      const first = await send({ to: members, body: 'first' });
      const next = await send({ conversationId: first.body.conversationId, body: 'second' });
      assert.equal(next.body.conversationId, first.body.conversationId);
      assert.notEqual(next.body.id, first.body.id);
      assert.deepEqual(sorted(next.body.to), sorted(members));
      assert.deepEqual(sorted(next.body.participants.map((p: any) => p.phone)), sorted(members));
      assert.deepEqual(await recipientsOf(next.body.id), sorted(members));
    });

    test('addParticipants adds a recipient to the next send and keeps the conversation id', async () => {
      const members = [phone(), phone()];
      const newcomer = phone();
      const first = await send({ to: members });
      const next = await send({
        conversationId: first.body.conversationId,
        addParticipants: [newcomer],
      });
      assert.equal(next.body.conversationId, first.body.conversationId);
      assert.deepEqual(sorted(next.body.to), sorted([...members, newcomer]));
      assert.deepEqual(await recipientsOf(next.body.id), sorted([...members, newcomer]));
      // The addition lasts: a plain continuation still reaches the newcomer.
      const after = await send({ conversationId: first.body.conversationId });
      assert.deepEqual(await recipientsOf(after.body.id), sorted([...members, newcomer]));
    });

    test('removeParticipants drops a recipient from this and later sends and keeps the id', async () => {
      const [a, b, c] = [phone(), phone(), phone()];
      const first = await send({ to: [a, b, c] });
      const next = await send({
        conversationId: first.body.conversationId,
        removeParticipants: [b],
      });
      assert.equal(next.body.conversationId, first.body.conversationId);
      assert.deepEqual(sorted(next.body.to), sorted([a, c]));
      assert.deepEqual(await recipientsOf(next.body.id), sorted([a, c]));
      const after = await send({ conversationId: first.body.conversationId });
      assert.deepEqual(await recipientsOf(after.body.id), sorted([a, c]));
      // The message the removed participant did receive keeps them.
      assert.deepEqual(await recipientsOf(first.body.id), sorted([a, b, c]));
    });

    test('a removed participant can be added back', async () => {
      const [a, b] = [phone(), phone()];
      const first = await send({ to: [a, b] });
      await send({ conversationId: first.body.conversationId, removeParticipants: [b] });
      const back = await send({ conversationId: first.body.conversationId, addParticipants: [b] });
      assert.deepEqual(await recipientsOf(back.body.id), sorted([a, b]));
    });

    test('removing every participant is 422 and stores nothing', async () => {
      const [a, b] = [phone(), phone()];
      const first = await send({ to: [a, b] });
      const res = await assertNothingStored(t.store.db, acct.accountId, () =>
        acct.test.post('/v1/messages', {
          from,
          conversationId: first.body.conversationId,
          removeParticipants: [a, b],
          body: 'nobody',
        }),
      );
      assert.equal(res.status, 422);
      assert.equal(res.body.error.type, 'validation_error');
      assert.equal(res.body.error.param, 'removeParticipants');
      // The failed request left the group as it was.
      const again = await send({ conversationId: first.body.conversationId });
      assert.deepEqual(await recipientsOf(again.body.id), sorted([a, b]));
    });

    test('a number both added and removed in one send is 422 naming it, and the group stays as it was', async () => {
      const [a, b, c] = [phone(), phone(), phone()];
      const first = await send({ to: [a, b] });
      const res = await assertNothingStored(t.store.db, acct.accountId, () =>
        acct.test.post('/v1/messages', {
          from,
          conversationId: first.body.conversationId,
          addParticipants: [c],
          removeParticipants: [b, c],
          body: 'which is it?',
        }),
      );
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.type, 'validation_error');
      assert.equal(res.body.error.param, 'removeParticipants[1]');
      const again = await send({ conversationId: first.body.conversationId });
      assert.deepEqual(await recipientsOf(again.body.id), sorted([a, b]));
    });

    test('growing a group past 10 participants is 422 with param addParticipants', async () => {
      const members = Array.from({ length: 9 }, () => phone());
      const first = await send({ to: members });
      const res = await acct.test.post('/v1/messages', {
        from,
        conversationId: first.body.conversationId,
        addParticipants: [phone(), phone()],
        body: 'too many',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'addParticipants');
    });

    test('a malformed number in addParticipants is 422 naming its index', async () => {
      const first = await send({ to: [phone(), phone()] });
      const res = await acct.test.post('/v1/messages', {
        from,
        conversationId: first.body.conversationId,
        addParticipants: [phone(), '555-0100'],
        body: 'x',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'addParticipants[1]');
    });

    test('continuing a group from another of the account numbers is 422 with param from', async () => {
      const first = await send({ to: [phone(), phone()] });
      const res = await acct.test.post('/v1/messages', {
        from: acct.testNumbers[1],
        conversationId: first.body.conversationId,
        body: 'wrong line',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'from');
    });

    test('participants cannot be changed on a one-to-one thread (422 addParticipants)', async () => {
      const direct = await send({ to: phone() });
      const res = await acct.test.post('/v1/messages', {
        from,
        conversationId: direct.body.conversationId,
        addParticipants: [phone()],
        body: 'x',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'addParticipants');
    });

    test('conversationId of a one-to-one thread sends to its one recipient', async () => {
      const to = phone();
      const direct = await send({ to });
      const next = await send({ conversationId: direct.body.conversationId, body: 'again' });
      assert.equal(next.body.to, to);
      assert.equal(next.body.conversationId, direct.body.conversationId);
      assert.equal(next.body.participants, undefined);
    });

    test('participant statuses follow their own receipts; a failing one does not fail the group', async () => {
      const good = phone();
      const res = await send({ to: [good, INVALID_NUMBER] });
      const done = await waitForMessage(
        acct.test,
        res.body.id,
        (m) => m.participants.every((p: any) => p.status === 'delivered' || p.status === 'failed'),
        'every participant settled',
      );
      assert.deepEqual(
        byPhone(done.participants),
        byPhone([
          { phone: INVALID_NUMBER, status: 'failed' },
          { phone: good, status: 'delivered' },
        ]),
      );
      // Overall: the least advanced of the participants that have not failed.
      assert.equal(done.status, 'delivered');
      assert.equal(done.failureReason, null);
    });

    test('a group whose every participant fails is failed, with a failureReason', async () => {
      const res = await send({ to: [INVALID_NUMBER, CARRIER_REJECTED] });
      const done = await waitForMessage(
        acct.test,
        res.body.id,
        (m) => m.status === 'failed' || m.status === 'delivered',
        'settled',
      );
      assert.equal(done.status, 'failed');
      assert.ok(['invalid_number', 'carrier_rejected'].includes(done.failureReason));
      assert.deepEqual(
        done.participants.map((p: any) => p.status),
        ['failed', 'failed'],
      );
    });

    test('a group with a participant stuck at sent stays sent overall while others are delivered', async () => {
      const good = phone();
      const res = await send({ to: [good, NEVER_DELIVERED] });
      const done = await waitForMessage(
        acct.test,
        res.body.id,
        (m) =>
          m.participants.find((p: any) => p.phone === good)?.status === 'delivered' &&
          m.participants.find((p: any) => p.phone === NEVER_DELIVERED)?.status === 'sent',
        'one delivered, one sent',
      );
      assert.equal(done.status, 'sent');
    });
  });
}
