// SIP trunks: a live softphone's call leaves through its number's trunk with that number as
// caller ID (and the trunk's digest login when it asks), and a trunk's call to a live number
// rings the account's live softphones, when it comes from the trunk's address or proves
// itself with the trunk's credentials. sipp plays the trunk and the softphones.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { issueSipCredentials } from '../../src/voice/ephemeral-credentials.ts';
import type { TestAccount } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf } from '../support/messaging.ts';
import { runSipp, startVoiceApp, type VoiceTestApp } from '../support/voice.ts';
import { startSippServer } from '../support/voice-trunk.ts';

const CALLED = '+12065550123';

for (const engine of ENGINES) {
  describe(`calls through SIP trunks [${engine}]`, () => {
    let t: VoiceTestApp;
    let acct: TestAccount;
    let line = 0;

    before(async () => {
      t = await startVoiceApp(engine);
      acct = await t.newAccount('Trunks');
    });
    after(() => t.close());

    /** A trunk on the account and a new live number through it. */
    async function trunkedNumber(trunk: Record<string, unknown>): Promise<string> {
      const phone = `+1415555${String(2000 + ++line)}`;
      const clock = { now: Date.now };
      await t.store.write(async (tx) => {
        const seal = (s: string) => t.secrets.seal(s);
        const car = await addCarrier(
          tx,
          acct.accountId,
          { type: 'sip', ...trunk },
          { clock, seal },
        );
        await addNumber(
          tx,
          { accountId: acct.accountId, mode: 'live', phone, voiceCarrierId: car.id },
          { clock },
        );
      });
      return phone;
    }

    function liveLogin() {
      const who = { accountId: acct.accountId, mode: 'live' as const, userId: 'usr_trunks' };
      return issueSipCredentials(t.voice.secrets, who, Date.now(), 600);
    }

    /** The account's live call events, once `count` of them exist (polled for at most 10 s). */
    async function liveCalls(count: number) {
      for (let i = 0; i < 100; i++) {
        const events = (await eventsOf(t.store.db, acct.accountId, 'live')).filter((e) =>
          e.type.startsWith('call.'),
        );
        if (events.length >= count) return events;
        await sleep(100);
      }
      assert.fail(`fewer than ${count} live call events after 10 s`);
    }

    /** A live softphone registered to Kamailio, answering its calls with sipp on its own port. */
    async function answeringSoftphone() {
      const phone = await startSippServer('answer');
      const login = liveLogin();
      const reg = await runSipp(t.stack, 'register-contact', {
        keys: { aor: login.aor, contact_port: String(phone.port) },
        username: login.username,
        password: login.password,
      });
      assert.equal(reg.code, 0, reg.errors || reg.output);
      return phone;
    }

    test('a live call leaves through the trunk with the number as caller ID and its digest login', async () => {
      const trunk = await startSippServer('answer-with-digest');
      const number = await trunkedNumber({
        host: '127.0.0.1',
        port: trunk.port,
        username: 'trunkuser',
        password: 'trunk-secret',
      });
      const login = liveLogin();
      const before = (await liveCalls(0)).length;
      const call = await runSipp(t.stack, 'call', {
        keys: { from: 'softphone', to: CALLED },
        username: login.username,
        password: login.password,
        pauseMs: 1000,
      });
      assert.equal(call.code, 0, call.errors || call.output);
      const far = await trunk.done;
      assert.equal(far.code, 0, far.errors || far.output);
      assert.match(far.log, /AUTH OK/);
      assert.match(far.log, new RegExp(`^FROM sip:\\${number}$`, 'm'));
      const event = (await liveCalls(before + 1)).at(-1)!;
      assert.deepEqual(
        [event.type, event.data.direction, event.data.from, event.data.to, event.data.status],
        ['call.completed', 'outbound', number, CALLED, 'completed'],
      );
    });

    test('a live softphone of an account whose numbers have no trunk cannot call out', async () => {
      const other = await t.newAccount('No trunk');
      const who = { accountId: other.accountId, mode: 'live' as const, userId: 'usr_none' };
      const login = issueSipCredentials(t.voice.secrets, who, Date.now(), 600);
      const call = await runSipp(t.stack, 'call', {
        keys: { from: 'softphone', to: CALLED },
        username: login.username,
        password: login.password,
        timeoutMs: 5000,
      });
      assert.notEqual(call.code, 0);
      assert.match(call.errors + call.output, /403/);
    });

    test("a call from the trunk's address rings the account's live softphones", async () => {
      const number = await trunkedNumber({ host: '127.0.0.1' });
      const phone = await answeringSoftphone();
      const before = (await liveCalls(0)).length;
      const call = await runSipp(t.stack, 'trunk-call', {
        keys: { from: CALLED, to: number },
        pauseMs: 1000,
      });
      assert.equal(call.code, 0, call.errors || call.output);
      const answered = await phone.done;
      assert.equal(answered.code, 0, answered.errors || answered.output);
      const event = (await liveCalls(before + 1)).at(-1)!;
      assert.deepEqual(
        [event.type, event.data.direction, event.data.from, event.data.to],
        ['call.completed', 'inbound', CALLED, number],
      );
    });

    test('a call to a live number from any other address and without credentials is refused 403', async () => {
      const number = await trunkedNumber({ host: '192.0.2.10' });
      const call = await runSipp(t.stack, 'call-refused', {
        keys: { from: CALLED, to: number },
        timeoutMs: 5000,
      });
      assert.equal(call.code, 0, call.errors || call.output);
    });

    test("a call proving the trunk's credentials is taken from any address; wrong ones are refused", async () => {
      const number = await trunkedNumber({
        host: '192.0.2.11',
        username: 'inbound',
        password: 'inbound-secret',
      });
      const wrong = await runSipp(t.stack, 'call', {
        keys: { from: CALLED, to: number },
        username: 'inbound',
        password: 'not-the-secret',
        timeoutMs: 5000,
      });
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.errors + wrong.output, /403/);
      const phone = await answeringSoftphone();
      const call = await runSipp(t.stack, 'call', {
        keys: { from: CALLED, to: number },
        username: 'inbound',
        password: 'inbound-secret',
        pauseMs: 500,
      });
      assert.equal(call.code, 0, call.errors || call.output);
      assert.equal((await phone.done).code, 0);
    });

    test('routing questions without the control token of this run are not found', async () => {
      for (const [path, body] of [
        ['/voice/route', { aor: `${acct.accountId}.live`, from: 'x', to: CALLED }],
        ['/voice/inbound', { to: '+14155552001', source: '127.0.0.1' }],
      ] as const) {
        const res = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-switchboard-voice': 'wrong' },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 404);
        assert.doesNotMatch(await res.text(), /secret/);
      }
    });
  });
}
