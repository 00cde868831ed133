// The softphone's SIP credentials are short-lived and tied to its session: it renews them while
// signed in, in place, so its registration and a call in progress carry on past their first
// expiry; once its session has ended it gets none, and its call ends with it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { VoiceTestApp } from '../../../server/test/support/voice.ts';
import { newContext, signIn } from '../support/browser.ts';
import { createLogin, type Login } from '../support/softphone.ts';
import { callEvents, signedInPage, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

/** How long credentials last in this suite: renewed every 3 s. */
const LIFETIME_S = 6;

/** Every REGISTER the page sends, with its Authorization's username, and each 200 it gets. */
function watchRegisters(page: Page) {
  const seen = { usernames: new Set<string>(), okAt: [] as number[] };
  page.on('websocket', (socket) => {
    socket.on('framesent', (frame) => {
      const text = String(frame.payload);
      const user = /^REGISTER [^]*?^Authorization: *Digest [^\r\n]*username="([^"]+)"/m.exec(text);
      if (user) seen.usernames.add(user[1]!);
    });
    socket.on('framereceived', (frame) => {
      if (/^SIP\/2\.0 200 [^]*^CSeq: *\d+ REGISTER/m.test(String(frame.payload))) {
        seen.okAt.push(Date.now());
      }
    });
  });
  return seen;
}

describe('the softphone’s SIP credentials', () => {
  let rig: VoiceRig;
  let t: VoiceTestApp;
  let member: Login;

  before(async () => {
    rig = await startVoiceRig({ credentialSeconds: LIFETIME_S });
    t = rig.t;
    member = await createLogin(t, rig.acct.accountId, 'member', 'Max Member');
  });
  after(() => rig?.close());

  test('are renewed before they expire: it stays registered and a call in progress carries on', async () => {
    const page = await (await newContext(rig.browser, t.url)).newPage();
    const registers = watchRegisters(page);
    await signIn(page, member.email, member.password);
    await page.goto('/app/link?action=call&to=%2B12065550123&ad=1');
    const timer = page.getByRole('timer');
    await timer.getByText(/^0:0\d$/).waitFor({ timeout: 15_000 });
    const answered = Date.now();
    // Past two lifetimes of the first credentials.
    await sleep(2 * LIFETIME_S * 1000 + 500);
    assert.ok(registers.usernames.size >= 3, `logins used: ${[...registers.usernames].join(', ')}`);
    assert.ok(
      registers.okAt.some((at) => at > answered + LIFETIME_S * 1000),
      'registered again after the first credentials expired',
    );
    assert.equal(await timer.getByText('Call ended').count(), 0, 'the call carried on');
    await page.getByRole('button', { name: 'Hang up' }).click();
    const talked = (Date.now() - answered) / 1000;
    const [event] = await callEvents(rig, 'call.completed', 1, 10_000);
    assert.ok(Math.abs(event.data.duration - talked) <= 1, `${event.data.duration} vs ${talked}`);
    await page.close();
  });

  test('a session that ends gets no new credentials: its call ends and the app signs out', async () => {
    const page = await signedInPage(rig, member);
    const before = (await callEvents(rig, 'call.completed', 0)).length;
    await page.goto('/app/link?action=call&to=%2B12065550124&ad=1');
    await page
      .getByRole('timer')
      .getByText(/^0:0\d$/)
      .waitFor({ timeout: 15_000 });
    // The session ends on the server (expired, or signed out elsewhere).
    await t.store.write((tx) =>
      tx.db.deleteFrom('sessions').where('user_id', '=', member.id).execute(),
    );
    // The call ends once its credentials lapse (waited for up to two lifetimes).
    const ended = (await callEvents(rig, 'call.completed', before + 1, 2 * LIFETIME_S * 1000))[
      before
    ];
    assert.equal(ended.data.to, '+12065550124');
    assert.ok(ended.data.duration <= LIFETIME_S, `duration ${ended.data.duration}`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
  });
});
