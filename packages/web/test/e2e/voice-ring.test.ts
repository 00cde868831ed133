// A sandbox call with `ring: true` rings every signed-in softphone of the account at once through
// Kamailio's parallel forking; the first to answer takes it, the others say so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestAccount } from '../../../server/test/support/app.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import { startVoiceApp, type VoiceTestApp } from '../../../server/test/support/voice.ts';
import { CHROMIUM_PATH, newContext, signIn } from '../support/browser.ts';
import { createLogin, registered } from '../support/softphone.ts';

const GRACE = '+14155550151';
/** Kamailio's ring timeout in this suite, short to keep it quick. */
const RING_MS = 6000;

describe('ringing every signed-in softphone', () => {
  let t: VoiceTestApp;
  let acct: TestAccount;
  let line: string;
  let browser: Browser;
  const pages: Page[] = [];

  before(async () => {
    t = await startVoiceApp('sqlite', { ringTimeoutMs: RING_MS });
    acct = await t.newAccount('Acme Plumbing');
    line = acct.testNumbers[0]!;
    await acct.test.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper' });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        '--autoplay-policy=no-user-gesture-required',
      ],
      timeout: 30_000,
    });
    for (const name of ['Ann Answer', 'Bob Bystander']) {
      const login = await createLogin(t, acct.accountId, 'member', name);
      const page = await (await newContext(browser, t.url)).newPage();
      const ready = registered(page);
      await signIn(page, login.email, login.password);
      await Promise.race([
        ready,
        sleep(15_000).then(() => assert.fail(`${name}'s softphone did not register`)),
      ]);
      pages.push(page);
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function callEvents(type: string, count: number) {
    for (let i = 0; i < 150; i++) {
      const events = await eventsOf(t.store.db, acct.accountId, 'test', type);
      if (events.length >= count) return events;
      await sleep(100);
    }
    assert.fail(`fewer than ${count} ${type} after 15 s`);
  }

  test('both devices ring with the caller’s name; the first answer takes the call and the other shows answered elsewhere', async () => {
    const [ann, bob] = pages as [Page, Page];
    const res = await acct.test.post('/v1/sandbox/calls', { from: GRACE, to: line, ring: true });
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body, {
      object: 'sandbox_ring',
      from: GRACE,
      to: line,
      status: 'ringing',
    });
    for (const page of pages) {
      const ringing = page.getByRole('alertdialog', { name: 'Incoming call' });
      await ringing.getByText('Grace Hopper').waitFor({ timeout: 10_000 });
    }
    await ann.getByRole('button', { name: 'Answer', exact: true }).click();
    await bob.getByRole('status').getByText('Answered elsewhere').waitFor({ timeout: 10_000 });
    assert.equal(await bob.getByRole('alertdialog', { name: 'Incoming call' }).count(), 0);
    await ann
      .getByRole('timer')
      .getByText(/^0:0\d$/)
      .waitFor({ timeout: 10_000 });
    const answered = Date.now();
    await sleep(2000);
    await ann.getByRole('button', { name: 'Hang up' }).click();
    const talked = (Date.now() - answered) / 1000;
    const [event] = await callEvents('call.completed', 1);
    assert.deepEqual(
      [event!.data.direction, event!.data.status, event!.data.from, event!.data.to],
      ['inbound', 'completed', GRACE, line],
    );
    assert.ok(Math.abs(event!.data.duration - talked) <= 1, `${event!.data.duration} vs ${talked}`);
  });

  test('a call nobody answers stops ringing after the ring timeout and is call.missed', async () => {
    const res = await acct.test.post('/v1/sandbox/calls', { from: GRACE, to: line, ring: true });
    assert.equal(res.status, 202, res.text);
    for (const page of pages) {
      await page.getByRole('alertdialog', { name: 'Incoming call' }).waitFor({ timeout: 10_000 });
    }
    const [event] = await callEvents('call.missed', 1);
    assert.deepEqual(
      [event!.data.direction, event!.data.status, event!.data.duration],
      ['inbound', 'missed', 0],
    );
    for (const page of pages) {
      await page
        .getByRole('alertdialog', { name: 'Incoming call' })
        .waitFor({ state: 'detached', timeout: 5000 });
    }
  });

  test('ring to a number that is not the account’s is refused and rings nobody', async () => {
    const res = await acct.test.post('/v1/sandbox/calls', {
      from: GRACE,
      to: '+14155550199',
      ring: true,
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.param, 'to');
    await sleep(1000);
    assert.equal(await pages[0]!.getByRole('alertdialog', { name: 'Incoming call' }).count(), 0);
  });
});
