// Voice across instances sharing one PostgreSQL database (SQLite is one process by design):
// each instance runs its own Kamailio and rtpengine and announces it (voice_instances); an
// inbound call reaching one instance also rings the softphones registered with the others,
// the first answer takes it, and the instance the call reached alone records it. sipp plays
// the softphones, registered with credentials each instance issued; those that ring check that
// no Switchboard token (the peers' or the control one) reaches them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { issueSipCredentials, voiceRunId } from '../../src/voice/ephemeral-credentials.ts';
import type { TestAccount } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf } from '../support/messaging.ts';
import { startSecondVoiceInstance, type VoiceInstance } from '../support/second-voice-instance.ts';
import {
  runSipp,
  signInForVoice,
  startVoiceApp,
  type SipLogin,
  type VoiceTestApp,
} from '../support/voice.ts';
import { startSippServer, type SippServer } from '../support/voice-trunk.ts';

const enabled = ENGINES.includes('postgres');

describe('voice across instances [postgres]', { skip: !enabled }, () => {
  let a: VoiceTestApp;
  let b: VoiceInstance;
  let acct: TestAccount;
  const secretKey = randomBytes(32);

  before(async () => {
    a = await startVoiceApp('postgres', { secretKey });
    b = await startSecondVoiceInstance(a, secretKey);
    acct = await a.newAccount('Two instances');
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const instances = () =>
    a.store.db.selectFrom('voice_instances').selectAll().orderBy('run_id').execute();
  const calls = async () =>
    (await eventsOf(a.store.db, acct.accountId, 'test')).filter((e) => e.type.startsWith('call.'));

  async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 100; i++) {
      const value = await check();
      if (value !== undefined) return value;
      await sleep(100);
    }
    assert.fail(`${what}: not within 10 s`);
  }

  /** A softphone (sipp playing `scenario`) registered with `stack`'s Kamailio as `login`. */
  async function softphone(
    stack: VoiceTestApp['stack'],
    login: SipLogin,
    scenario: string,
  ): Promise<SippServer> {
    const phone = await startSippServer(scenario, { timeoutMs: 20_000 });
    const reg = await runSipp(stack, 'register-contact', {
      keys: { aor: login.aor, contact_port: String(phone.port) },
      username: login.username,
      password: login.password,
    });
    assert.equal(reg.code, 0, reg.errors || reg.output);
    return phone;
  }

  test('each running instance is announced with where its Kamailio takes SIP', async () => {
    const rows = await until('both announced', async () => {
      const found = await instances();
      return found.length === 2 ? found : undefined;
    });
    const expected = [
      [voiceRunId(a.voice.secrets), `127.0.0.1:${a.stack.sipPort}`],
      [voiceRunId(b.voice.secrets), `127.0.0.1:${b.stack.sipPort}`],
    ].sort();
    assert.deepEqual(
      rows.map((row) => [row.run_id, row.sip_address]),
      expected,
    );
  });

  test('A lists the other live instances as branches for its Kamailio alone, never itself', async () => {
    const ask = (token: string) =>
      fetch(`${a.url}/voice/peers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-switchboard-voice': token },
        body: JSON.stringify({ aor: `${acct.accountId}.test` }),
      });
    const listed = await ask(a.voice.secrets.controlToken);
    assert.equal(listed.status, 200);
    assert.equal(
      await listed.text(),
      `sip:${acct.accountId}.test@127.0.0.1:${b.stack.sipPort};sb_peer=1`,
    );
    for (const token of ['wrong', b.voice.secrets.controlToken]) {
      assert.equal((await ask(token)).status, 404, 'not without this run’s control token');
    }
  });

  test("an inbound call to A rings both instances' softphones; B's answer takes it, A's is cancelled as answered elsewhere, and one call is recorded", async () => {
    const onA = await signInForVoice(a, acct);
    const onB = await signInForVoice({ ...a, url: b.url }, acct);
    assert.equal(onB.wsUrl, b.stack.wsUrl, 'a softphone registers with its own instance');
    const phoneA = await softphone(a.stack, onA, 'ring-until-cancelled');
    const phoneB = await softphone(b.stack, onB, 'answer-hang-up');
    const before = (await calls()).length;
    const ring = await acct.test.post('/v1/sandbox/calls', {
      from: '+12065550142',
      to: acct.testNumbers[0],
      ring: true,
    });
    assert.equal(ring.status, 202, ring.text);
    const answered = await phoneB.done;
    assert.equal(answered.code, 0, answered.errors || answered.output);
    const cancelled = await phoneA.done;
    assert.equal(cancelled.code, 0, cancelled.errors + cancelled.log);
    assert.match(cancelled.log, /CANCEL cause=200/);
    const event = await until('the call recorded', async () => (await calls())[before]);
    assert.deepEqual(
      [event.type, event.data.direction, event.data.from, event.data.to, event.data.status],
      ['call.completed', 'inbound', '+12065550142', acct.testNumbers[0], 'completed'],
    );
    assert.ok(event.data.duration >= 1, `duration ${event.data.duration}`);
    // B reports nothing of its own: no second record (nor a missed call) follows.
    await sleep(1500);
    assert.equal((await calls()).length, before + 1);
    assert.deepEqual(await a.store.db.selectFrom('open_calls').selectAll().execute(), []);
  });

  test('when A’s softphone answers, the one on B is cancelled as answered elsewhere too', async () => {
    const other = await a.newAccount('Answered on A');
    const phoneA = await softphone(a.stack, await signInForVoice(a, other), 'answer-hang-up');
    const onB = await signInForVoice({ ...a, url: b.url }, other);
    const phoneB = await softphone(b.stack, onB, 'ring-until-cancelled');
    const ring = await other.test.post('/v1/sandbox/calls', {
      from: '+12065550144',
      to: other.testNumbers[0],
      ring: true,
    });
    assert.equal(ring.status, 202, ring.text);
    const answered = await phoneA.done;
    assert.equal(answered.code, 0, answered.errors || answered.output);
    const cancelled = await phoneB.done;
    assert.equal(cancelled.code, 0, cancelled.errors + cancelled.log);
    assert.match(cancelled.log, /CANCEL cause=200/);
  });

  test('an inbound call to an instance where none of the account’s softphones registered rings those on the other', async () => {
    const other = await a.newAccount('Only on B');
    const onB = await signInForVoice({ ...a, url: b.url }, other);
    const phone = await softphone(b.stack, onB, 'answer-hang-up');
    const ring = await other.test.post('/v1/sandbox/calls', {
      from: '+12065550143',
      to: other.testNumbers[0],
      ring: true,
    });
    assert.equal(ring.status, 202, ring.text);
    const answered = await phone.done;
    assert.equal(answered.code, 0, answered.errors || answered.output);
    const event = await until('the call recorded', async () => {
      const events = await eventsOf(a.store.db, other.accountId, 'test', 'call.completed');
      return events[0];
    });
    assert.equal(event.data.from, '+12065550143');
  });

  test("a trunk's call to a live number reaching A rings the live softphone registered with B", async () => {
    const phone = '+14155552301';
    await a.store.write(async (tx) => {
      const clock = { now: Date.now };
      const seal = (secret: string) => a.secrets.seal(secret);
      const trunk = await addCarrier(
        tx,
        acct.accountId,
        { type: 'sip', host: '127.0.0.1' },
        { clock, seal },
      );
      const input = { accountId: acct.accountId, mode: 'live' as const, phone };
      await addNumber(tx, { ...input, voiceCarrierId: trunk.id }, { clock });
    });
    const who = { accountId: acct.accountId, mode: 'live' as const, userId: 'usr_on_b' };
    const login = issueSipCredentials(b.voice.secrets, who, Date.now(), 600);
    const onB = await softphone(
      b.stack,
      { ...login, wsUrl: '', sipUri: '', expiresAt: '' },
      'answer',
    );
    const call = await runSipp(a.stack, 'trunk-call', {
      keys: { from: '+12065550145', to: phone },
      pauseMs: 1000,
    });
    assert.equal(call.code, 0, call.errors || call.output);
    const answered = await onB.done;
    assert.equal(answered.code, 0, answered.errors || answered.output);
    const event = await until('the call recorded', async () => {
      const events = await eventsOf(a.store.db, acct.accountId, 'live', 'call.completed');
      return events[0];
    });
    assert.deepEqual([event.data.from, event.data.to], ['+12065550145', phone]);
  });

  test('a peer INVITE to B without the peers’ token (wrong or empty) is refused 403 and rings nothing', async () => {
    const onB = await signInForVoice({ ...a, url: b.url }, acct);
    const phone = await softphone(b.stack, onB, 'answer');
    for (const token of ['not-the-peers-token', '']) {
      const forged = await runSipp(b.stack, 'peer-invite', {
        keys: { aor: onB.aor, token },
        timeoutMs: 5000,
      });
      assert.equal(forged.code, 0, `token "${token}": ${forged.errors || forged.output}`);
    }
    await phone.stop();
    const run = await phone.done;
    assert.doesNotMatch(run.log, /FROM/, 'the softphone on B never rang');
  });

  test("a silent instance's row is ignored and removed; a stopped instance's row is gone", async () => {
    await a.store.write((tx) =>
      tx.db
        .insertInto('voice_instances')
        .values({ run_id: 'silent-run', sip_address: '127.0.0.1:9', seen_at: Date.now() - 60_000 })
        .execute(),
    );
    await a.app.deps.changes.run('announceVoiceInstance', {
      runId: voiceRunId(a.voice.secrets),
      sipAddress: `127.0.0.1:${a.stack.sipPort}`,
    });
    assert.equal((await instances()).length, 2);
    assert.ok(!(await instances()).some((row) => row.run_id === 'silent-run'));
    await b.close();
    assert.deepEqual(
      (await instances()).map((row) => row.run_id),
      [voiceRunId(a.voice.secrets)],
    );
  });
});
