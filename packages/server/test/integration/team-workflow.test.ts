import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { assertNothingStored, phoneNumbers } from '../support/messaging.ts';
import { openChannel, signedInTeammate, type Teammate } from '../support/team.ts';

for (const engine of ENGINES) {
  describe(`team workflow on the shared inbox [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let ann: Teammate;
    let bob: Teammate;
    const phone = phoneNumbers('646');

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('Acme');
      ann = await signedInTeammate(t, acct, 'Ann Lee');
      bob = await signedInTeammate(t, acct, 'Bob Stone');
    });
    after(() => t.close());

    /** An inbound text from `from`; answers its conversation's id. */
    async function inbound(from: string, body = 'Hello?'): Promise<string> {
      const res = await acct.test.post('/v1/sandbox/inbound', {
        to: acct.testNumbers[0],
        from,
        body,
      });
      assert.equal(res.status, 201, res.text);
      return (res.body as { conversationId: string }).conversationId;
    }

    async function row(mate: Teammate, id: string) {
      const { data } = await mate.json('GET', '/conversations');
      return (data as any[]).find((c) => c.id === id);
    }

    test('a conversation marked done stays done across reloads and reopens on a new inbound text', async () => {
      const from = phone();
      const id = await inbound(from);
      assert.equal((await row(ann, id)).status, 'open');
      const done = await ann.json('POST', `/conversations/${id}/status`, { status: 'done' });
      assert.deepEqual(done, { conversationId: id, status: 'done', assigneeId: null });
      assert.equal((await row(bob, id)).status, 'done', 'a teammate sees it done after a reload');
      await inbound(from, 'One more thing');
      assert.equal((await row(ann, id)).status, 'open');
    });

    test('each teammate has their own read state, and marking unread touches only their own', async () => {
      const id = await inbound(phone());
      assert.equal((await row(ann, id)).unreadCount, 1);
      assert.equal((await row(bob, id)).unreadCount, 1);
      await ann.json('POST', `/conversations/${id}/read`);
      assert.equal((await row(ann, id)).unreadCount, 0);
      assert.equal((await row(bob, id)).unreadCount, 1, "Ann's reading is not Bob's");
      await ann.json('POST', `/conversations/${id}/unread`);
      assert.equal((await row(ann, id)).unreadCount, 1);
      await bob.json('POST', `/conversations/${id}/read`);
      assert.equal((await row(ann, id)).unreadCount, 1, "Bob's reading does not clear Ann's mark");
      assert.equal((await row(bob, id)).unreadCount, 0);
    });

    test('a teammate who joins later does not inherit older texts as unread', async () => {
      const id = await inbound(phone());
      const cleo = await signedInTeammate(t, acct, 'Cleo');
      assert.equal((await row(cleo, id)).unreadCount, 0);
      await inbound((await row(cleo, id)).participants[0].phone, 'Are you there?');
      assert.equal((await row(cleo, id)).unreadCount, 1);
    });

    test('a conversation is assigned to a teammate, then to nobody; a stranger cannot be assigned', async () => {
      const id = await inbound(phone());
      const assigned = await ann.json('POST', `/conversations/${id}/assignee`, {
        assigneeId: bob.id,
      });
      assert.equal(assigned.assigneeId, bob.id);
      assert.equal((await row(bob, id)).assigneeId, bob.id);
      const stranger = await signedInTeammate(t, await t.newAccount('Other'), 'Stranger');
      const refused = await ann.json(
        'POST',
        `/conversations/${id}/assignee`,
        { assigneeId: stranger.id },
        422,
      );
      assert.equal(refused.error.type, 'validation_error');
      assert.equal(refused.error.param, 'assigneeId');
      assert.equal((await row(ann, id)).assigneeId, bob.id, 'a refused change changes nothing');
      await ann.json('POST', `/conversations/${id}/assignee`, { assigneeId: null });
      assert.equal((await row(ann, id)).assigneeId, null);
    });

    test('another account cannot see or change a conversation', async () => {
      const id = await inbound(phone());
      const outsider = await signedInTeammate(t, await t.newAccount('Outside'), 'Outsider');
      for (const [path, body] of [
        ['status', { status: 'done' }],
        ['assignee', { assigneeId: null }],
        ['notes', { body: 'peek' }],
        ['unread', undefined],
      ] as const) {
        const res = await outsider.call('POST', `/conversations/${id}/${path}`, body);
        assert.equal(res.status, 404, path);
      }
      assert.equal((await row(ann, id)).status, 'open');
    });

    test('a bad status or an empty note is a 422 and changes nothing', async () => {
      const id = await inbound(phone());
      const bad = await ann.json('POST', `/conversations/${id}/status`, { status: 'closed' }, 422);
      assert.deepEqual(Object.keys(bad.error).sort(), ['message', 'param', 'type']);
      assert.equal(bad.error.param, 'status');
      const empty = await ann.json('POST', `/conversations/${id}/notes`, { body: '   ' }, 422);
      assert.equal(empty.error.param, 'body');
      const thread = await ann.json('GET', `/conversations/${id}`);
      assert.equal(thread.conversation.status, 'open');
      assert.deepEqual(thread.notes, []);
    });

    test('an internal note is kept in the thread and never sent: no message, submission or event', async () => {
      const id = await inbound(phone());
      const note = await assertNothingStored(t.store.db, acct.accountId, () =>
        ann.json('POST', `/conversations/${id}/notes`, { body: 'Refund approved, @bob' }, 201),
      );
      assert.equal(note.body, 'Refund approved, @bob');
      assert.deepEqual(note.mentions, [bob.id]);
      assert.deepEqual(note.author, { id: ann.id, name: 'Ann Lee' });
      const thread = await bob.json('GET', `/conversations/${id}`);
      assert.deepEqual(
        thread.notes.map((n: any) => n.id),
        [note.id],
        'kept across reloads',
      );
      assert.equal(thread.messages.length, 1, 'only the customer text is a message');
    });

    test('every change reaches every device live, and a typing notice reaches only teammates', async () => {
      const id = await inbound(phone());
      const annChannel = await openChannel(t, ann);
      const bobChannel = await openChannel(t, bob);
      try {
        await ann.json('POST', `/conversations/${id}/assignee`, { assigneeId: bob.id });
        const assigned = await bobChannel.next(
          (p) => p.type === 'conversation.updated' && p.conversationId === id,
        );
        assert.equal(assigned.assigneeId, bob.id);
        assert.deepEqual(assigned.by, { id: ann.id, name: 'Ann Lee' });

        await ann.json('POST', `/conversations/${id}/notes`, { body: '@Bob can you call?' }, 201);
        const noted = await bobChannel.next((p) => p.type === 'note.created');
        assert.deepEqual(noted.note.mentions, [bob.id]);

        await bob.json('POST', `/conversations/${id}/read`);
        const read = await annChannel.next((p) => p.type === 'conversation.read');
        assert.equal(read.userId, bob.id, "Ann's devices can tell it was Bob's read");

        await ann.json('POST', `/conversations/${id}/status`, { status: 'done' });
        await bobChannel.next((p) => p.type === 'conversation.updated' && p.status === 'done');
        await inbound((await row(ann, id)).participants[0].phone, 'Back again');
        // Reopened by the customer's text, not by a teammate.
        const reopened = await bobChannel.next(
          (p) => p.type === 'conversation.updated' && p.by === null,
        );
        assert.equal(reopened.status, 'open');

        annChannel.socket.send(JSON.stringify({ type: 'typing', conversationId: id }));
        const typing = await bobChannel.next((p) => p.type === 'typing');
        assert.deepEqual(typing, {
          type: 'typing',
          conversationId: id,
          user: { id: ann.id, name: 'Ann Lee' },
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(!annChannel.pushes.some((p) => p.type === 'typing'), 'not echoed to its typist');
      } finally {
        annChannel.close();
        bobChannel.close();
      }
    });
  });
}
