import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { appSession, until, type AppSession } from '../support/app-session.ts';
import { ENGINES } from '../support/engines.ts';

interface Party {
  phone: string;
  optedOut: boolean;
  active: boolean;
}

for (const engine of ENGINES) {
  describe(`softphone safety: opt-out marks and the contact directory [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let other: TestAccount;
    let me: AppSession;
    let n = 0;
    const phone = () => `+1415556${String(1000 + ++n)}`;

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('Acme');
      other = await t.newAccount('Other');
      me = await appSession(t, acct.accountId);
    });
    after(() => t.close());

    const inbound = async (from: string, body: string) => {
      const res = await acct.test.post('/v1/sandbox/inbound', {
        from,
        to: acct.testNumbers[0],
        body,
      });
      assert.equal(res.status, 201, res.text);
      return res.body as { conversationId: string };
    };
    const thread = async (id: string) => {
      const res = await me.call('GET', `/conversations/${id}`);
      return ((await res.json()) as { conversation: { participants: Party[] } }).conversation;
    };
    const optedOut = async (phones: string[]) => {
      const res = await me.call('GET', `/opted-out?phones=${encodeURIComponent(phones.join(','))}`);
      assert.equal(res.status, 200);
      return ((await res.json()) as { data: string[] }).data;
    };

    test('a thread says its number opted out, and START lifts it live on the channel', async () => {
      const customer = phone();
      const { conversationId } = await inbound(customer, 'Hi there');
      assert.equal((await thread(conversationId)).participants[0]!.optedOut, false);
      const { socket, pushes } = await me.channel();
      try {
        await inbound(customer, 'STOP');
        const stop = await until(
          () => pushes.find((p) => p.type === 'opt-out.changed'),
          'the STOP push',
        );
        assert.deepEqual(stop, { type: 'opt-out.changed', phone: customer, optedOut: true });
        assert.equal((await thread(conversationId)).participants[0]!.optedOut, true);
        const list = (await (await me.call('GET', '/conversations')).json()) as {
          data: { id: string; participants: Party[] }[];
        };
        assert.equal(
          list.data.find((c) => c.id === conversationId)?.participants[0]?.optedOut,
          true,
        );
        await inbound(customer, 'START');
        const start = await until(
          () => pushes.filter((p) => p.type === 'opt-out.changed')[1],
          'the START push',
        );
        assert.deepEqual(start, { type: 'opt-out.changed', phone: customer, optedOut: false });
        assert.equal((await thread(conversationId)).participants[0]!.optedOut, false);
      } finally {
        socket.terminate();
      }
    });

    test('the app asks which recipients opted out, within its own account and mode only', async () => {
      const [out, fine] = [phone(), phone()];
      await inbound(out, 'STOP');
      assert.deepEqual(await optedOut([out, fine]), [out]);
      const stranger = await appSession(t, other.accountId);
      const res = await stranger.call('GET', `/opted-out?phones=${encodeURIComponent(out)}`);
      assert.deepEqual(((await res.json()) as { data: string[] }).data, []);
      const many = Array.from({ length: 11 }, phone).join(',');
      const refused = await me.call('GET', `/opted-out?phones=${encodeURIComponent(many)}`);
      assert.equal(refused.status, 422);
    });

    const newContact = async (s: AppSession, body: object) => {
      const res = await s.call('POST', '/contacts', body);
      assert.equal(res.status, 201);
      return (await res.json()) as { id: string; name: string | null; email: string | null };
    };
    const directory = async (s: AppSession) =>
      (
        (await (await s.call('GET', '/contacts')).json()) as {
          data: { id: string; name: string | null }[];
        }
      ).data;

    test('deleting a contact removes it for everyone, live, and caller ID falls back', async () => {
      const number = phone();
      const older = await newContact(me, { phone: number, name: 'Rosa Garcia' });
      const newer = await newContact(me, { phone: number, name: 'Rosa G (dup)' });
      const { socket, pushes } = await me.channel();
      try {
        const res = await me.call('DELETE', `/contacts/${newer.id}`);
        assert.equal(res.status, 200);
        await until(
          () => pushes.find((p) => p.type === 'contact.deleted' && p.id === newer.id),
          'the delete push',
        );
        const ids = (await directory(me)).map((c) => c.id);
        assert.ok(!ids.includes(newer.id));
        assert.ok(ids.includes(older.id));
        const { conversationId } = await inbound(number, 'hello');
        const convo = await thread(conversationId);
        assert.equal((convo.participants[0] as Party & { name: string }).name, 'Rosa Garcia');
        assert.equal((await me.call('DELETE', `/contacts/${newer.id}`)).status, 404);
      } finally {
        socket.terminate();
      }
    });

    test('merging keeps one contact with the duplicate’s details filled in, and removes the duplicate', async () => {
      const number = phone();
      const keep = await newContact(me, { phone: number, name: 'Sam Lee' });
      const dup = await newContact(me, {
        phone: number,
        email: 'sam@example.com',
        company: 'Lee Co',
      });
      const res = await me.call('POST', `/contacts/${keep.id}/merge`, { duplicateId: dup.id });
      assert.equal(res.status, 200);
      const merged = (await res.json()) as {
        id: string;
        name: string;
        email: string;
        company: string;
      };
      assert.deepEqual(
        [merged.id, merged.name, merged.email, merged.company],
        [keep.id, 'Sam Lee', 'sam@example.com', 'Lee Co'],
      );
      assert.ok(!(await directory(me)).some((c) => c.id === dup.id));
    });

    test('bad deletes and merges are refused and change nothing', async () => {
      const mine = await newContact(me, { phone: phone(), name: 'Kept' });
      const stranger = await appSession(t, other.accountId);
      const theirs = await newContact(stranger, { phone: phone(), name: 'Theirs' });
      const cases: [string, string, unknown, number][] = [
        ['DELETE', `/contacts/${theirs.id}`, undefined, 404],
        ['POST', `/contacts/${mine.id}/merge`, { duplicateId: theirs.id }, 404],
        ['POST', `/contacts/${theirs.id}/merge`, { duplicateId: mine.id }, 404],
        ['POST', `/contacts/${mine.id}/merge`, { duplicateId: mine.id }, 422],
        ['POST', `/contacts/${mine.id}/merge`, {}, 422],
      ];
      for (const [method, path, body, status] of cases) {
        const res = await me.call(method, path, body);
        assert.equal(res.status, status, `${method} ${path}`);
        assert.ok(((await res.json()) as { error: { type: string } }).error.type);
      }
      assert.ok((await directory(me)).some((c) => c.id === mine.id));
      assert.ok((await directory(stranger)).some((c) => c.id === theirs.id));
    });
  });
}
