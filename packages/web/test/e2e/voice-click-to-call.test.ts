// Click-to-call places real calls (JsSIP in Chromium, Kamailio, the sandbox far end): from a
// thread's header on the thread's line, from the calls list on the line of the call, and from
// a contact on the default line; each asks first, then dials.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { TestAccount } from '../../../server/test/support/app.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import type { VoiceTestApp } from '../../../server/test/support/voice.ts';
import { createLogin } from '../support/softphone.ts';
import { signedInPage, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const GRACE = '+14155550131';

describe('click-to-call', () => {
  let rig: VoiceRig;
  let t: VoiceTestApp;
  let acct: TestAccount;
  let page: Page;

  before(async () => {
    rig = await startVoiceRig();
    ({ t, acct } = rig);
    await acct.test.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper' });
    // A thread with Grace on the account's second line.
    await acct.test.post('/v1/messages', { from: acct.testNumbers[1], to: GRACE, body: 'Hello' });
    page = await signedInPage(rig, await createLogin(t, acct.accountId, 'member', 'Max Member'));
  });
  after(() => rig?.close());

  /** Confirms the dialer's prompt, talks a second, hangs up; the call.completed it recorded. */
  async function confirmTalkHangUp() {
    const before = (await eventsOf(t.store.db, acct.accountId, 'test', 'call.completed')).length;
    const prompt = page.getByRole('alertdialog');
    await prompt.getByText('Call Grace Hopper at (415) 555-0131?').waitFor();
    await prompt.getByRole('button', { name: 'Call' }).click();
    const timer = page.getByRole('timer');
    await timer.getByText(/^0:0\d$/).waitFor({ timeout: 15_000 });
    await sleep(1000);
    await page.getByRole('button', { name: 'Hang up' }).click();
    await timer.getByText('Call ended').waitFor();
    for (let i = 0; i < 100; i++) {
      const events = await eventsOf(t.store.db, acct.accountId, 'test', 'call.completed');
      if (events.length > before) return events[before]!;
      await sleep(100);
    }
    assert.fail('no call.completed within 10 s');
  }

  test("a thread's Call button calls the other party from the thread's line", async () => {
    await page.goto('/app/inbox');
    await page
      .getByRole('link', { name: /Grace Hopper/ })
      .first()
      .click();
    await page.locator('.thread-header').getByRole('button', { name: 'Call' }).click();
    const event = await confirmTalkHangUp();
    assert.deepEqual(
      [event.data.direction, event.data.from, event.data.to, event.data.status],
      ['outbound', acct.testNumbers[1], GRACE, 'completed'],
    );
  });

  test('Call back in the calls list calls from the line of that call', async () => {
    await page.goto('/app/calls');
    await page
      .getByRole('list', { name: 'Call history' })
      .getByText('Grace Hopper')
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Call Grace Hopper' }).first().click();
    const event = await confirmTalkHangUp();
    assert.deepEqual([event.data.from, event.data.to], [acct.testNumbers[1], GRACE]);
  });

  test("a contact's Call button calls from the default line", async () => {
    await page.goto('/app/contacts');
    await page.getByRole('list', { name: 'Contacts' }).getByText('Grace Hopper').waitFor();
    await page.getByRole('button', { name: 'Call Grace Hopper' }).first().click();
    const event = await confirmTalkHangUp();
    assert.deepEqual([event.data.from, event.data.to], [acct.testNumbers[0], GRACE]);
  });
});
