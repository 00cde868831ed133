// Live calls over a SIP trunk from the softphone: JsSIP in headless Chromium (fake microphone)
// over Kamailio's WebSocket, rtpengine bridging WebRTC to plain RTP, and sipp playing the
// carrier on the trunk's far end, answering and echoing the audio or calling in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { verifyWebhook } from '../../../sdk/src/webhooks/verify.ts';
import { addCarrier } from '../../../server/src/commands/add-carrier.ts';
import { addNumber } from '../../../server/src/commands/add-number.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import { startReceiver, type Receiver } from '../../../server/test/support/receiver.ts';
import { rtpLegs, runSipp } from '../../../server/test/support/voice.ts';
import { startSippServer, type SippServer } from '../../../server/test/support/voice-trunk.ts';
import { createEndpoint } from '../../../server/test/support/webhooks.ts';
import { createLogin } from '../support/softphone.ts';
import { signedInPage, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

/** The live number on the trunk, a customer it calls, and one who calls it. */
const LINE = '+14155552301';
const CALLED = '+12065550123';
const GRACE = '+12065550177';

describe('live calls over a SIP trunk from the softphone', () => {
  let rig: VoiceRig;
  let carrier: SippServer;
  let receiver: Receiver;
  let endpoint: { id: string; secret: string };
  let page: Page;
  /** The Call-IDs of the INVITEs the page's softphone sent and received over its WebSocket. */
  const sent: string[] = [];
  const received: string[] = [];

  /** A SIP trunk on the account and a live number whose calls go through it. */
  async function trunkedNumber(phone: string, trunk: Record<string, unknown>): Promise<void> {
    const { t, acct } = rig;
    const clock = { now: Date.now };
    await t.store.write(async (tx) => {
      const seal = (s: string) => t.secrets.seal(s);
      const car = await addCarrier(tx, acct.accountId, { type: 'sip', ...trunk }, { clock, seal });
      await addNumber(
        tx,
        { accountId: acct.accountId, mode: 'live', phone, voiceCarrierId: car.id },
        { clock },
      );
    });
  }

  /** The account's live `type` events once there are at least `count` (10 s at most). */
  async function liveEvents(type: string, count: number): Promise<any[]> {
    for (let i = 0; i < 100; i++) {
      const events = await eventsOf(rig.t.store.db, rig.acct.accountId, 'live', type);
      if (events.length >= count) return events;
      await sleep(100);
    }
    assert.fail(`fewer than ${count} live ${type} after 10 s`);
  }

  /** Resolves once the page's live softphone has registered (15 s at most). */
  function registeredLive(): Promise<void> {
    const done = new Promise<void>((resolve) =>
      page.on('websocket', (socket) =>
        socket.on('framereceived', (frame) => {
          const text = String(frame.payload);
          if (/^SIP\/2\.0 200 [^]*^CSeq: *\d+ REGISTER/m.test(text) && /\.live@/.test(text)) {
            resolve();
          }
        }),
      ),
    );
    return Promise.race([
      done,
      sleep(15_000).then(() => assert.fail('the live softphone did not register in 15 s')),
    ]);
  }

  /** rtpengine's counts for a call: both parties (browser, trunk) carried audio. */
  async function assertAudioBothWays(callId: string | undefined) {
    assert.ok(callId, 'the INVITE was seen');
    const legs = await rtpLegs(rig.t.stack, callId);
    assert.equal(legs.length, 2, JSON.stringify(legs));
    for (const leg of legs) assert.ok(leg.packets > 20 && leg.bytes > 0, JSON.stringify(legs));
  }

  before(async () => {
    rig = await startVoiceRig({ env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' } });
    const { t, acct } = rig;
    // The carrier's side of the trunk: challenges for the trunk's login, answers, echoes.
    carrier = await startSippServer('answer-with-digest', { rtpEcho: true, timeoutMs: 120_000 });
    await trunkedNumber(LINE, {
      host: '127.0.0.1',
      port: carrier.port,
      username: 'trunkuser',
      password: 'trunk-secret',
    });
    receiver = await startReceiver();
    endpoint = await createEndpoint(acct.live, `${receiver.url}/calls`, ['call.completed']);
    const contact = await acct.live.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper' });
    assert.equal(contact.status, 201, contact.text);
    page = await signedInPage(rig, await createLogin(t, acct.accountId, 'member', 'Max Member'));
    page.on('websocket', (socket) => {
      socket.on('framesent', (frame) => {
        const invite = /^INVITE [^]*?^Call-ID: *(\S+)/m.exec(String(frame.payload));
        if (invite) sent.push(invite[1]!);
      });
      socket.on('framereceived', (frame) => {
        const invite = /^INVITE [^]*?^Call-ID: *(\S+)/m.exec(String(frame.payload));
        if (invite) received.push(invite[1]!);
      });
    });
    const ready = registeredLive();
    await page.getByRole('radio', { name: 'Live' }).check();
    await ready;
  });
  after(async () => {
    await rig?.close();
    await carrier?.stop();
    await receiver?.close();
  });

  test('a live call link with ad=1 leaves through the trunk with the number as caller ID and the trunk’s digest login, carries audio both ways, and its hang-up sends call.completed, signed, with the seconds talked', async () => {
    await page.goto(`/app/link?action=call&to=${encodeURIComponent(CALLED)}&ad=1`);
    const timer = page.getByRole('timer');
    await timer.getByText(/^0:0\d$/).waitFor({ timeout: 15_000 });
    const answered = Date.now();
    await sleep(2000);
    await assertAudioBothWays(sent.at(-1));
    await sleep(1000);
    await page.getByRole('button', { name: 'Hang up' }).click();
    const talked = (Date.now() - answered) / 1000;
    await timer.getByText('Call ended').waitFor();

    // The carrier saw the live number as the caller, and the trunk's login when it asked.
    const far = await Promise.race([
      carrier.done,
      sleep(10_000).then(() => assert.fail('the carrier’s sipp did not end in 10 s')),
    ]);
    assert.equal(far.code, 0, far.errors || far.output);
    assert.match(far.log, new RegExp(`^FROM sip:\\${LINE}$`, 'm'));
    assert.match(far.log, /AUTH OK/);

    const [event] = await liveEvents('call.completed', 1);
    assert.deepEqual(
      [event.data.direction, event.data.status, event.data.from, event.data.to],
      ['outbound', 'completed', LINE, CALLED],
    );
    assert.ok(Math.abs(event.data.duration - talked) <= 1, `${event.data.duration} vs ${talked}`);
    const [delivery] = await receiver.waitFor('/calls', 1, { timeoutMs: 15_000, intervalMs: 50 });
    const signed = await verifyWebhook(
      delivery!.raw,
      delivery!.headers['x-service-signature'] as string,
      endpoint.secret,
    );
    assert.equal(signed.type, 'call.completed');
    assert.equal(signed.id, event.id);
    const data = signed.data as { id: string; duration: number; from: string };
    assert.equal(data.id, event.data.id);
    assert.equal(data.from, LINE);
    assert.ok(Math.abs(data.duration - talked) <= 1, `${data.duration} vs ${talked}`);
  });

  test('a call from the trunk’s address to the live number rings the live softphone with the contact’s name; answered, it carries audio both ways, and the carrier’s hang-up records call.completed with the seconds talked', async () => {
    // The deep link reloaded the page: its softphone registers anew before the call comes.
    const ready = registeredLive();
    await page.goto('/app/calls');
    await ready;
    const before = (await eventsOf(rig.t.store.db, rig.acct.accountId, 'live', 'call.completed'))
      .length;
    const talkMs = 3000;
    const call = runSipp(rig.t.stack, 'trunk-call', {
      keys: { from: GRACE, to: LINE },
      pauseMs: talkMs,
      rtpEcho: true,
      timeoutMs: 30_000,
    });
    const ringing = page.getByRole('alertdialog', { name: 'Incoming call' });
    await ringing.getByText('Grace Hopper').waitFor({ timeout: 10_000 });
    await ringing.getByRole('button', { name: 'Answer', exact: true }).click();
    const timer = page.getByRole('timer');
    await timer.getByText(/^0:0\d$/).waitFor({ timeout: 10_000 });
    const answered = Date.now();
    await sleep(2000);
    await assertAudioBothWays(received.at(-1));
    await timer.getByText('Call ended').waitFor({ timeout: 10_000 });
    const talked = (Date.now() - answered) / 1000;
    const run = await call;
    assert.equal(run.code, 0, run.errors || run.output);
    const event = (await liveEvents('call.completed', before + 1)).at(-1)!;
    assert.deepEqual(
      [event.data.direction, event.data.status, event.data.from, event.data.to],
      ['inbound', 'completed', GRACE, LINE],
    );
    assert.ok(Math.abs(event.data.duration - talkMs / 1000) <= 1, String(event.data.duration));
    assert.ok(Math.abs(event.data.duration - talked) <= 1, `${event.data.duration} vs ${talked}`);
  });

  test('a call to a live number from an address that is not its trunk, without credentials, is refused 403 and rings no softphone', async () => {
    const elsewhere = '+14155552302';
    await trunkedNumber(elsewhere, { host: '192.0.2.10' });
    const invites = received.length;
    const call = await runSipp(rig.t.stack, 'call-refused', {
      keys: { from: GRACE, to: elsewhere },
      timeoutMs: 5000,
    });
    assert.equal(call.code, 0, call.errors || call.output);
    await sleep(1000);
    assert.equal(received.length, invites, 'no INVITE reached the softphone');
    assert.equal(await page.getByRole('alertdialog', { name: 'Incoming call' }).count(), 0);
  });
});
