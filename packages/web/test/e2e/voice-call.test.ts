// A real call from the softphone: JsSIP in headless Chromium (fake microphone) over Kamailio's
// WebSocket, rtpengine bridging WebRTC to plain RTP, and the sandbox far end (sipp) answering.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Page } from 'playwright-core';
import { verifyWebhook } from '../../../sdk/src/webhooks/verify.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import { startReceiver, type Receiver } from '../../../server/test/support/receiver.ts';
import { createEndpoint } from '../../../server/test/support/webhooks.ts';
import { rtpLegs, type VoiceTestApp } from '../../../server/test/support/voice.ts';
import type { TestAccount } from '../../../server/test/support/app.ts';
import { CHROMIUM_PATH, newContext, signIn } from '../support/browser.ts';
import { createLogin, type Login } from '../support/softphone.ts';
import { callEvents, signedInPage, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

describe('calling from the softphone', () => {
  let rig: VoiceRig;
  let t: VoiceTestApp;
  let acct: TestAccount;
  let member: Login;
  let page: Page;
  let receiver: Receiver;
  let endpoint: { id: string; secret: string };

  before(async () => {
    rig = await startVoiceRig({ env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' } });
    ({ t, acct } = rig);
    receiver = await startReceiver();
    endpoint = await createEndpoint(acct.test, `${receiver.url}/calls`, ['call.completed']);
    member = await createLogin(t, acct.accountId, 'member', 'Max Member');
    page = await signedInPage(rig, member);
  });
  after(async () => {
    await rig?.close();
    await receiver?.close();
  });

  test('a call link with ad=1 dials the sandbox, connects with audio both ways, and its hang-up sends call.completed, signed, with the seconds talked', async () => {
    // The call's SIP Call-ID, from the INVITE JsSIP sends over Kamailio's WebSocket.
    let callId: string | null = null;
    page.on('websocket', (socket) =>
      socket.on('framesent', (frame) => {
        const invite = /^INVITE [^]*?^Call-ID: *(\S+)/m.exec(String(frame.payload));
        if (invite) callId = invite[1]!;
      }),
    );
    await page.goto('/app/link?action=call&to=%2B12065550123&ad=1');
    const timer = page.getByRole('timer');
    await timer.getByText(/^0:0\d$/).waitFor({ timeout: 15_000 });
    const answered = Date.now();
    await sleep(2000);
    // rtpengine's own counts: the browser's leg (Opus or G.711 over DTLS-SRTP) and the far
    // end's (plain RTP, echoed back) both carried audio.
    assert.ok(callId, 'the INVITE was seen');
    const legs = await rtpLegs(t.stack, callId);
    assert.equal(legs.length, 2, JSON.stringify(legs));
    for (const leg of legs) assert.ok(leg.packets > 20 && leg.bytes > 0, JSON.stringify(legs));
    await sleep(1000);
    await page.getByRole('button', { name: 'Hang up' }).click();
    const talked = (Date.now() - answered) / 1000;
    await timer.getByText('Call ended').waitFor();
    const [event] = await callEvents(rig, 'call.completed', 1, 10_000);
    assert.equal(event.data.direction, 'outbound');
    assert.equal(event.data.status, 'completed');
    assert.equal(event.data.to, '+12065550123');
    assert.ok(acct.testNumbers.includes(event.data.from), event.data.from);
    assert.ok(Math.abs(event.data.duration - talked) <= 1, `${event.data.duration} vs ${talked}`);
    // The same event reaches the account's endpoint as a webhook that the SDK's check accepts.
    const [delivery] = await receiver.waitFor('/calls', 1, { timeoutMs: 15_000, intervalMs: 50 });
    const signed = await verifyWebhook(
      delivery!.raw,
      delivery!.headers['x-service-signature'] as string,
      endpoint.secret,
    );
    assert.equal(signed.type, 'call.completed');
    assert.equal(signed.id, event.id);
    const data = signed.data as { id: string; duration: number; status: string };
    assert.equal(data.id, event.data.id);
    assert.equal(data.status, 'completed');
    assert.ok(Math.abs(data.duration - talked) <= 1, `${data.duration} vs ${talked}`);
  });
  test('a refused microphone is explained and places no call', async () => {
    // Without the fake consent UI, headless Chromium refuses the microphone as a person would.
    const refusing = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-fake-device-for-media-stream'],
      timeout: 30_000,
    });
    try {
      const other = await (await newContext(refusing, t.url)).newPage();
      await signIn(other, member.email, member.password);
      await other.goto('/app/calls');
      const before = (await eventsOf(t.store.db, acct.accountId, 'test')).length;
      await other.getByRole('textbox', { name: 'Number' }).fill('+12065550124');
      await other.getByRole('button', { name: 'Call', exact: true }).click();
      await other
        .getByRole('alert')
        .getByText(/needs your microphone/)
        .waitFor();
      await sleep(500);
      assert.equal((await eventsOf(t.store.db, acct.accountId, 'test')).length, before);
    } finally {
      await refusing.close();
    }
  });
});
