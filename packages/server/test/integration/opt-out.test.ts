import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addNumber } from '../../src/commands/add-number.ts';
import {
  START_CONFIRMATION,
  STOP_CONFIRMATION,
  defaultHelpReply,
} from '../../src/domain/opt-out-keywords.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startBackground } from '../../src/workers/background.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import type { TestResponse } from '../support/http.ts';
import {
  eventsOf,
  outboundTo,
  phoneNumbers,
  assertNothingStored,
  waitForMessage,
  waitForStatus,
} from '../support/messaging.ts';

const ACCOUNT_NAME = 'Acme Dental';
const STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
const START_WORDS = ['START', 'UNSTOP', 'YES'];
const HELP_WORDS = ['HELP', 'INFO'];

for (const engine of ENGINES) {
  describe(`recipient opt-out [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let numberA: string;
    let numberB: string;
    const phone = phoneNumbers('303');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount(ACCOUNT_NAME);
      [numberA, numberB] = acct.testNumbers as [string, string];
    });
    after(() => t.close());

    /** Texts `body` from `from` to one of the account's numbers through the sandbox. */
    async function inbound(
      from: string,
      body: string,
      to = numberA,
      account = acct,
    ): Promise<TestResponse> {
      const res = await account.test.post('/v1/sandbox/inbound', { from, to, body });
      assert.equal(res.status, 201, res.text);
      return res;
    }

    async function sendTo(
      to: string | string[],
      from = numberA,
      account = acct,
    ): Promise<TestResponse> {
      return account.test.post('/v1/messages', { from, to, body: 'Your appointment is at 3pm' });
    }

    /** The platform's automatic replies to `phone`, oldest first. */
    async function autoReplies(phone: string, account = acct) {
      const rows = await outboundTo(t.store.db, account.accountId, 'test', phone);
      return rows.filter((r) => r.sender_name === 'Auto-reply');
    }

    async function assertReceivedRecorded(message: any): Promise<void> {
      const received = (
        await eventsOf(t.store.db, acct.accountId, 'test', 'message.received')
      ).filter((e) => e.data.id === message.id);
      assert.equal(received.length, 1, `one message.received for ${JSON.stringify(message.body)}`);
      assert.deepEqual(received[0]!.data, message);
    }

    /** Asserts that a one-to-one send to `to` is refused as opted out and stores nothing. */
    async function assertBlocked(to: string, from = numberA): Promise<void> {
      const res = await assertNothingStored(t.store.db, acct.accountId, () => sendTo(to, from));
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.type, 'recipient_opted_out');
      assert.equal(res.body.error.param, 'to');
    }

    async function assertSendable(to: string, from = numberA, account = acct): Promise<void> {
      const res = await sendTo(to, from, account);
      assert.equal(res.status, 201, res.text);
    }

    test('every STOP keyword opts the sender out and sends the STOP confirmation', async () => {
      for (const keyword of STOP_WORDS) {
        const sender = phone();
        await assertSendable(sender);
        const res = await inbound(sender, keyword);
        assert.equal(res.body.direction, 'inbound');
        await assertReceivedRecorded(res.body);
        const replies = await autoReplies(sender);
        assert.equal(replies.length, 1, `${keyword}: one confirmation`);
        assert.equal(replies[0]!.body, STOP_CONFIRMATION);
        assert.equal(replies[0]!.from_phone, numberA, 'sent from the number that was texted');
        await assertBlocked(sender);
      }
    });

    test('the STOP confirmation is a real outbound message that is delivered despite the opt-out', async () => {
      const sender = phone();
      await inbound(sender, 'STOP');
      const [reply] = await autoReplies(sender);
      assert.ok(reply);
      const fetched = await acct.test.get(`/v1/messages/${reply.id}`);
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.direction, 'outbound');
      assert.equal(fetched.body.senderName, 'Auto-reply');
      assert.equal(fetched.body.to, sender);
      const done = await waitForStatus(acct.test, reply.id, ['delivered', 'failed']);
      assert.equal(done.status, 'delivered');
      // It sits in the sender's thread with the STOP itself.
      const stop = await t.store.db
        .selectFrom('messages')
        .select('conversation_id')
        .where('account_id', '=', acct.accountId)
        .where('direction', '=', 'inbound')
        .where('from_phone', '=', sender)
        .executeTakeFirstOrThrow();
      assert.equal(fetched.body.conversationId, stop.conversation_id);
    });

    test('keywords match case-insensitively, trimmed, ignoring trailing punctuation', async () => {
      for (const body of ['stop', ' Stop! ', 'STOP.', 'sToP?!', '\tquit\n', 'Unsubscribe...']) {
        const sender = phone();
        await inbound(sender, body);
        assert.equal((await autoReplies(sender)).length, 1, JSON.stringify(body));
        await assertBlocked(sender);
      }
    });

    test('texts that merely contain a keyword change nothing and get no reply', async () => {
      for (const body of [
        'stop it',
        'please stop',
        'STOPP',
        '¡STOP',
        'S T O P',
        'help me',
        'yes please',
      ]) {
        const sender = phone();
        const res = await inbound(sender, body);
        await assertReceivedRecorded(res.body);
        assert.deepEqual(await autoReplies(sender), [], JSON.stringify(body));
        await assertSendable(sender);
      }
    });

    test('every START keyword lifts the opt-out and sends the START confirmation', async () => {
      for (const keyword of [...START_WORDS, ' start! ', 'yes.']) {
        const sender = phone();
        await inbound(sender, 'STOP');
        await assertBlocked(sender);
        const res = await inbound(sender, keyword);
        await assertReceivedRecorded(res.body);
        const replies = await autoReplies(sender);
        assert.deepEqual(
          replies.map((r) => r.body),
          [STOP_CONFIRMATION, START_CONFIRMATION],
          JSON.stringify(keyword),
        );
        await assertSendable(sender);
      }
    });

    test('a START keyword from a number that never opted out is an ordinary text: no reply', async () => {
      for (const keyword of [...START_WORDS, 'Yes!']) {
        const sender = phone();
        await assertSendable(sender);
        const res = await inbound(sender, keyword);
        await assertReceivedRecorded(res.body);
        assert.deepEqual(await autoReplies(sender), [], JSON.stringify(keyword));
        await assertSendable(sender);
      }
    });

    test('HELP and INFO get the default help reply and change nothing', async () => {
      for (const keyword of [...HELP_WORDS, 'help?']) {
        const sender = phone();
        const res = await inbound(sender, keyword);
        await assertReceivedRecorded(res.body);
        const replies = await autoReplies(sender);
        assert.deepEqual(
          replies.map((r) => r.body),
          [defaultHelpReply(ACCOUNT_NAME)],
          keyword,
        );
        assert.match(replies[0]!.body, /^Acme Dental: .*STOP.*START/);
        await assertSendable(sender);
      }
    });

    test('HELP from an opted-out number is answered and leaves it opted out', async () => {
      const sender = phone();
      await inbound(sender, 'STOP');
      await inbound(sender, 'HELP');
      assert.deepEqual(
        (await autoReplies(sender)).map((r) => r.body),
        [STOP_CONFIRMATION, defaultHelpReply(ACCOUNT_NAME)],
      );
      await assertBlocked(sender);
    });

    test('every keyword still records message.received with the text as sent', async () => {
      for (const keyword of [...STOP_WORDS, ...START_WORDS, ...HELP_WORDS]) {
        const res = await inbound(phone(), keyword);
        assert.equal(res.body.body, keyword);
        await assertReceivedRecorded(res.body);
      }
    });

    test('the opt-out covers every number of the account: STOP to A blocks sends from B', async () => {
      const sender = phone();
      await inbound(sender, 'STOP', numberA);
      await assertBlocked(sender, numberB);
      await assertBlocked(sender, acct.testNumbers[2]);
    });

    test('the opt-out does not reach another account', async () => {
      const sender = phone();
      await inbound(sender, 'STOP');
      const other = await t.newAccount('Other business');
      await assertSendable(sender, other.testNumbers[0], other);
    });

    test('a test-mode opt-out does not reach live mode', async () => {
      const sender = phone();
      await inbound(sender, 'STOP');
      const liveNumber = '+13035559876';
      await t.store.write((tx) =>
        addNumber(
          tx,
          { accountId: acct.accountId, mode: 'live', phone: liveNumber },
          { clock: { now: () => Date.now() } },
        ),
      );
      const live = await acct.live.post('/v1/messages', {
        from: liveNumber,
        to: sender,
        body: 'hi',
      });
      assert.equal(live.status, 201, live.text);
      await assertBlocked(sender);
    });

    test('continuing an opted-out one-to-one thread by conversationId is refused too, and the thread stays as it was', async () => {
      const sender = phone();
      const first = await sendTo(sender);
      await inbound(sender, 'STOP');
      const thread = () =>
        t.store.db
          .selectFrom('conversations')
          .selectAll()
          .where('id', '=', first.body.conversationId)
          .executeTakeFirstOrThrow();
      const before = await thread();
      const res = await assertNothingStored(t.store.db, acct.accountId, () =>
        acct.test.post('/v1/messages', {
          from: numberA,
          conversationId: first.body.conversationId,
          body: 'still there?',
        }),
      );
      assert.equal(res.status, 422);
      assert.equal(res.body.error.type, 'recipient_opted_out');
      assert.equal(res.body.error.param, 'conversationId');
      assert.deepEqual(await thread(), before, 'the thread keeps its place in the inbox');
    });

    test('in a group send the opted-out participant is dropped and the rest still receive', async () => {
      const [out, b, c] = [phone(), phone(), phone()];
      await inbound(out, 'STOP');
      const res = await sendTo([out, b, c]);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.to.toSorted(), [b, c].toSorted());
      assert.deepEqual(
        res.body.participants.map((p: any) => p.phone).toSorted(),
        [b, c].toSorted(),
      );
      const submitted = await t.store.db
        .selectFrom('message_recipients')
        .select('phone')
        .where('message_id', '=', res.body.id)
        .execute();
      assert.deepEqual(submitted.map((r) => r.phone).toSorted(), [b, c].toSorted());
    });

    test('a group send where every participant opted out is 422 recipient_opted_out and stores nothing', async () => {
      const [x, y] = [phone(), phone()];
      await inbound(x, 'STOP');
      await inbound(y, 'CANCEL');
      const res = await assertNothingStored(t.store.db, acct.accountId, () => sendTo([x, y]));
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.type, 'recipient_opted_out');
      assert.equal(res.body.error.param, 'to');
    });

    test('a participant who texts STOP is removed from later group sends and stays removed after START', async () => {
      const [leaver, stayer] = [phone(), phone()];
      const group = await sendTo([leaver, stayer]);
      const conversationId = group.body.conversationId;
      const continueGroup = async () => {
        const res = await acct.test.post('/v1/messages', {
          from: numberA,
          conversationId,
          body: 'group news',
        });
        assert.equal(res.status, 201, res.text);
        return res.body;
      };

      await inbound(leaver, 'STOP');
      const afterStop = await continueGroup();
      assert.deepEqual(afterStop.to, [stayer]);
      assert.equal(afterStop.conversationId, conversationId);

      await inbound(leaver, 'START');
      await assertSendable(leaver);
      const afterStart = await continueGroup();
      assert.deepEqual(afterStart.to, [stayer], 'START does not silently re-add');

      // The business may add them back deliberately.
      const readded = await acct.test.post('/v1/messages', {
        from: numberA,
        conversationId,
        addParticipants: [leaver],
        body: 'welcome back',
      });
      assert.equal(readded.status, 201, readded.text);
      assert.deepEqual(readded.body.to.toSorted(), [leaver, stayer].toSorted());
    });

    test('a number dropped from a new group as opted out does not join it, even after START', async () => {
      const [out, member] = [phone(), phone()];
      await inbound(out, 'STOP');
      const group = await sendTo([out, member]);
      assert.equal(group.status, 201, group.text);
      assert.deepEqual(group.body.to, [member]);
      await inbound(out, 'START');
      const next = await acct.test.post('/v1/messages', {
        from: numberA,
        conversationId: group.body.conversationId,
        body: 'group news',
      });
      assert.equal(next.status, 201, next.text);
      assert.deepEqual(next.body.to, [member], 'the group is who the first send reached');
    });

    test('a group where everyone left by STOP is refused as recipient_opted_out (param conversationId)', async () => {
      const [x, y] = [phone(), phone()];
      const group = await sendTo([x, y]);
      await inbound(x, 'STOP');
      await inbound(y, 'STOP');
      const res = await acct.test.post('/v1/messages', {
        from: numberA,
        conversationId: group.body.conversationId,
        body: 'anyone?',
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.type, 'recipient_opted_out');
      assert.equal(res.body.error.param, 'conversationId');
    });
  });

  describe(`a send queued before its recipient opted out [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let from: string;
    const phone = phoneNumbers('720');

    before(async () => {
      // The carrier side is started by hand, once sends are queued and STOP has arrived.
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount(ACCOUNT_NAME);
      from = acct.testNumbers[0]!;
    });
    after(() => t.close());

    async function queue(to: string | string[], body: string): Promise<any> {
      const res = await acct.test.post('/v1/messages', { from, to, body });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'queued');
      return res.body;
    }

    async function textIn(sender: string, body: string): Promise<void> {
      const res = await acct.test.post('/v1/sandbox/inbound', { from: sender, to: from, body });
      assert.equal(res.status, 201, res.text);
    }

    test("fails as opted_out with message.failed instead of leaving; the platform's own replies leave, queued before the STOP or after, and so does a send that START let through", async () => {
      const [stopper, member, other, returner, asker] = [
        phone(),
        phone(),
        phone(),
        phone(),
        phone(),
      ];
      const direct = await queue(stopper, 'Your order shipped');
      const group = await queue([member, other], 'Team lunch at noon');
      const later = await queue(returner, 'See you soon');
      await textIn(stopper, 'STOP');
      await textIn(member, 'STOP');
      await textIn(returner, 'STOP');
      await textIn(returner, 'START');
      // The HELP reply, queued before the STOP, is the platform's own: it still leaves.
      await textIn(asker, 'HELP');
      await textIn(asker, 'STOP');
      const background = await startBackground({
        config: t.config,
        store: t.store,
        clock: { now: () => Date.now() },
        secrets: t.secrets,
        logger: createLogger('silent'),
      });
      try {
        const failed = await waitForStatus(acct.test, direct.id, ['failed', 'delivered']);
        assert.equal(failed.status, 'failed');
        assert.equal(failed.failureReason, 'opted_out');
        const events = (
          await eventsOf(t.store.db, acct.accountId, 'test', 'message.failed')
        ).filter((e) => e.data.id === direct.id);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.data.failureReason, 'opted_out');

        const settled = await waitForMessage(
          acct.test,
          group.id,
          (m) => m.participants.every((p: any) => ['failed', 'delivered'].includes(p.status)),
          'every participant settled',
        );
        const byPhone = Object.fromEntries(
          settled.participants.map((p: any) => [p.phone, p.status]),
        );
        assert.deepEqual(byPhone, { [member]: 'failed', [other]: 'delivered' });

        assert.equal(
          (await waitForStatus(acct.test, later.id, ['failed', 'delivered'])).status,
          'delivered',
        );
        for (const sender of [stopper, member, returner, asker]) {
          const replies = (await outboundTo(t.store.db, acct.accountId, 'test', sender)).filter(
            (r) => r.sender_name === 'Auto-reply',
          );
          assert.ok(replies.length > 0);
          for (const reply of replies) {
            const status = (await waitForStatus(acct.test, reply.id, ['failed', 'delivered']))
              .status;
            assert.equal(status, 'delivered', `${reply.body} reaches ${sender}`);
          }
        }
      } finally {
        await background.stop();
      }
    });
  });
}
