// Real calls through the voice stack: sipp as the softphone, Kamailio as registrar and proxy,
// rtpengine in user space, and the sandbox far end (sipp answering and echoing).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { TestAccount } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf } from '../support/messaging.ts';
import { issueSipCredentials } from '../../src/voice/ephemeral-credentials.ts';
import {
  runSipp,
  signInForVoice,
  startVoiceApp,
  type SipLogin,
  type VoiceTestApp,
} from '../support/voice.ts';

for (const engine of ENGINES) {
  describe(`calls through Kamailio and the sandbox far end [${engine}]`, () => {
    let t: VoiceTestApp;
    let acct: TestAccount;
    let login: SipLogin;

    before(async () => {
      t = await startVoiceApp(engine);
      acct = await t.newAccount('Voice');
      login = await signInForVoice(t, acct);
    });
    after(() => t.close());

    /** The account's call events, once `count` of them exist (polled for at most 10 s). */
    async function callEvents(count: number) {
      for (let i = 0; i < 100; i++) {
        const events = (await eventsOf(t.store.db, acct.accountId, 'test')).filter((e) =>
          e.type.startsWith('call.'),
        );
        if (events.length >= count) return events;
        await sleep(100);
      }
      assert.fail(`fewer than ${count} call events after 10 s`);
    }

    test('a softphone registers with the ephemeral credentials Switchboard issued to its session', async () => {
      assert.match(login.username, /^\d+:acct_\w+\.test\.usr_\w+$/);
      const run = await runSipp(t.stack, 'register', {
        keys: { aor: login.aor },
        username: login.username,
        password: login.password,
      });
      assert.equal(run.code, 0, run.errors || run.output);
    });

    test('credentials signed with another secret are refused', async () => {
      const run = await runSipp(t.stack, 'register', {
        keys: { aor: login.aor },
        username: login.username,
        password: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        timeoutMs: 5000,
      });
      assert.notEqual(run.code, 0);
    });

    test('credentials past their expiry are refused, for registering and for calling', async () => {
      const expired = issueSipCredentials(
        t.voice.secrets,
        { accountId: acct.accountId, mode: 'test', userId: 'usr_gone' },
        Date.now() - 3_600_000,
        600,
      );
      const register = await runSipp(t.stack, 'register', {
        keys: { aor: expired.aor },
        username: expired.username,
        password: expired.password,
        timeoutMs: 5000,
      });
      assert.notEqual(register.code, 0);
      const call = await runSipp(t.stack, 'call', {
        keys: { from: acct.testNumbers[0]!, to: '+12065550123' },
        username: expired.username,
        password: expired.password,
        timeoutMs: 5000,
      });
      assert.notEqual(call.code, 0);
      assert.match(call.errors + call.output, /407/);
    });

    test('an answered call ends as call.completed with its whole seconds from answer to hang-up', async () => {
      const from = acct.testNumbers[0]!;
      const started = Date.now();
      const run = await runSipp(t.stack, 'call', {
        keys: { from, to: '+12065550123' },
        username: login.username,
        password: login.password,
        pauseMs: 2000,
      });
      assert.equal(run.code, 0, run.errors || run.output);
      assert.ok(Date.now() - started >= 2000);
      const [event] = await callEvents(1);
      assert.equal(event!.type, 'call.completed');
      assert.equal(event!.data.direction, 'outbound');
      assert.equal(event!.data.status, 'completed');
      assert.equal(event!.data.from, from);
      assert.equal(event!.data.to, '+12065550123');
      assert.ok(Math.abs(event!.data.duration - 2) <= 1, `duration ${event!.data.duration}`);
    });

    test('a call to the busy number ends as call.completed with status missed and no duration', async () => {
      const before = (await callEvents(0)).length;
      const run = await runSipp(t.stack, 'call-busy', {
        keys: { from: acct.testNumbers[1]!, to: '+15005550004' },
        username: login.username,
        password: login.password,
      });
      assert.equal(run.code, 0, run.errors || run.output);
      const event = (await callEvents(before + 1)).at(-1)!;
      assert.equal(event.type, 'call.completed');
      assert.deepEqual(
        [event.data.to, event.data.direction, event.data.status, event.data.duration],
        ['+15005550004', 'outbound', 'missed', 0],
      );
    });

    test('a call to the number that never answers rings until the caller gives up, then is missed', async () => {
      const before = (await callEvents(0)).length;
      const run = await runSipp(t.stack, 'call-unanswered', {
        keys: { from: acct.testNumbers[2]!, to: '+15005550005' },
        username: login.username,
        password: login.password,
        pauseMs: 1000,
      });
      assert.equal(run.code, 0, run.errors || run.output);
      const event = (await callEvents(before + 1)).at(-1)!;
      assert.deepEqual(
        [event.type, event.data.to, event.data.status, event.data.duration],
        ['call.completed', '+15005550005', 'missed', 0],
      );
    });

    test('call reports without the control token of this run are refused and record nothing', async () => {
      const before = (await callEvents(0)).length;
      const body = JSON.stringify({
        call_id: 'x',
        aor: `${acct.accountId}.test`,
        from: acct.testNumbers[0],
        to: '+12065550123',
        direction: 'outbound',
        outcome: 'completed',
        duration: 5,
      });
      for (const token of [null, 'wrong', `${t.voice.secrets.controlToken}x`]) {
        const res = await fetch(`${t.url}/voice/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { 'x-switchboard-voice': token } : {}),
          },
          body,
        });
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as any).error.type, 'not_found');
      }
      await sleep(300);
      assert.equal((await callEvents(0)).length, before);
    });
  });
}
