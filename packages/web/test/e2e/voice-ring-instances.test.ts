// Two instances with voice on over one PostgreSQL database: a teammate signed in through the
// other instance (its softphone registered with that instance's Kamailio) rings too when a
// call reaches the first, and answers it with audio bridged by their own instance's rtpengine.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import type { TestAccount } from '../../../server/test/support/app.ts';
import { ENGINES } from '../../../server/test/support/engines.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import {
  startSecondVoiceInstance,
  type VoiceInstance,
} from '../../../server/test/support/second-voice-instance.ts';
import { rtpLegs, startVoiceApp, type VoiceTestApp } from '../../../server/test/support/voice.ts';
import { newContext, signIn } from '../support/browser.ts';
import { createLogin, registered } from '../support/softphone.ts';
import { launchVoiceBrowser } from '../support/voice-rig.ts';

const GRACE = '+14155550151';

describe(
  'ringing softphones signed in through another instance',
  {
    skip: !ENGINES.includes('postgres'),
  },
  () => {
    let a: VoiceTestApp;
    let b: VoiceInstance;
    let acct: TestAccount;
    let browser: Browser;
    const secretKey = randomBytes(32);

    before(async () => {
      a = await startVoiceApp('postgres', { secretKey });
      b = await startSecondVoiceInstance(a, secretKey);
      acct = await a.newAccount('Acme Plumbing');
      browser = await launchVoiceBrowser();
    });
    after(async () => {
      await browser?.close();
      await b?.close();
      await a?.close();
    });

    /** `name` signed in through the instance at `url`, its softphone registered (15 s at most). */
    async function phoneThrough(
      url: string,
      name: string,
      onSip: (socketUrl: string, message: string) => void = () => {},
    ): Promise<Page> {
      const login = await createLogin(a, acct.accountId, 'member', name);
      const page = await (await newContext(browser, url)).newPage();
      page.on('websocket', (socket) =>
        socket.on('framereceived', (frame) => onSip(socket.url(), String(frame.payload))),
      );
      const ready = registered(page);
      await signIn(page, login.email, login.password);
      await Promise.race([
        ready,
        sleep(15_000).then(() => assert.fail(`${name}'s softphone did not register`)),
      ]);
      return page;
    }

    test('a call reaching A rings the teammate on B, who answers with audio both ways through B; the one on A shows answered elsewhere', async () => {
      const ann = await phoneThrough(a.url, 'Ann On A');
      // The call's Call-ID, from the INVITE B's Kamailio sends Bob over his WebSocket.
      let callId: string | null = null;
      const bob = await phoneThrough(b.url, 'Bob On B', (socketUrl, message) => {
        const invite = /^INVITE [^]*?^Call-ID: *(\S+)/m.exec(message);
        if (invite && socketUrl.startsWith(b.stack.wsUrl)) callId = invite[1]!;
      });
      const line = acct.testNumbers[0]!;
      const res = await acct.test.post('/v1/sandbox/calls', { from: GRACE, to: line, ring: true });
      assert.equal(res.status, 202, res.text);
      for (const page of [ann, bob]) {
        await page.getByRole('alertdialog', { name: 'Incoming call' }).waitFor({ timeout: 10_000 });
      }
      await bob.getByRole('button', { name: 'Answer', exact: true }).click();
      await ann.getByRole('status').getByText('Answered elsewhere').waitFor({ timeout: 10_000 });
      await bob
        .getByRole('timer')
        .getByText(/^0:0\d$/)
        .waitFor({ timeout: 10_000 });
      await sleep(2000);
      // B's rtpengine bridged Bob's WebRTC leg and the caller's plain RTP (echoed back).
      assert.ok(callId, 'the INVITE reached Bob');
      const legs = await rtpLegs(b.stack, callId);
      assert.equal(legs.length, 2, JSON.stringify(legs));
      for (const leg of legs) assert.ok(leg.packets > 20 && leg.bytes > 0, JSON.stringify(legs));
      await bob.getByRole('button', { name: 'Hang up' }).click();
      for (let i = 0; i < 100; i++) {
        if ((await eventsOf(a.store.db, acct.accountId, 'test', 'call.completed')).length) break;
        await sleep(100);
      }
      await sleep(1000);
      const calls = (await eventsOf(a.store.db, acct.accountId, 'test')).filter((e) =>
        e.type.startsWith('call.'),
      );
      assert.deepEqual(
        calls.map((e) => [e.type, e.data.direction, e.data.from, e.data.to]),
        [['call.completed', 'inbound', GRACE, line]],
      );
      assert.ok(calls[0]!.data.duration >= 2, `duration ${calls[0]!.data.duration}`);
    });
  },
);
