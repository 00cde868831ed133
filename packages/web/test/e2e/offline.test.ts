// The installed app without a network: it opens on what the device last saw, read-only, and
// texts typed meanwhile wait in an outbox that sends each exactly once when back online.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  assertAccessible,
  eventually,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
  VIEWPORTS,
} from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const CUSTOMER = '+14155550141';

describe('offline', () => {
  let s: Softphone;
  let browser: Browser;
  let conversationId: string;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    const res = await s.acct.test.post('/v1/sandbox/inbound', {
      from: CUSTOMER,
      to: s.acct.testNumbers[0],
      body: 'Is the shop open on Sunday?',
    });
    assert.equal(res.status, 201, res.text);
    conversationId = res.body.conversationId as string;
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  const sentWith = async (body: string) =>
    s.t.store.db
      .selectFrom('messages')
      .select('id')
      .where('account_id', '=', s.acct.accountId)
      .where('body', '=', body)
      .execute();

  async function openThread(page: Page): Promise<void> {
    await page.goto(`/app/inbox/${conversationId}`);
    await page.locator('.bubble-text', { hasText: 'Is the shop open on Sunday?' }).waitFor();
  }

  test('opened offline, the installed app shows the cached inbox and thread, and its outbox sends once online', async () => {
    const context: BrowserContext = await newContext(browser, s.t.url);
    const page = await context.newPage();
    await signIn(page, s.member.email, s.member.password);
    await openThread(page);
    await eventually(
      () =>
        page.evaluate(
          async () =>
            (await caches.keys()).length > 0 && navigator.serviceWorker.controller !== null,
        ),
      'the worker to take control with a filled cache',
    );
    // The device's copy is written within half a second of a change.
    await page.waitForTimeout(700);

    await context.setOffline(true);
    await page.reload();
    await page
      .getByRole('status')
      .filter({ hasText: 'Offline: showing what this device last saw' })
      .waitFor();
    await page.getByText('Offline: no network').first().waitFor();
    await page.locator('.bubble-text', { hasText: 'Is the shop open on Sunday?' }).waitFor();
    await page.getByRole('list', { name: 'Conversations' }).getByRole('link').first().waitFor();
    await page.getByRole('list', { name: 'Conversations' }).getByRole('link').first().click();

    await page.getByRole('textbox', { name: 'Message' }).fill('Yes, 10 to 4');
    await page.getByRole('button', { name: 'Send' }).click();
    const outbox = page.getByRole('list', { name: 'Outbox' });
    await outbox.getByText('Yes, 10 to 4').waitFor();
    await page.getByRole('status').filter({ hasText: '1 waiting' }).waitFor();
    await assertAccessible(page, 'offline thread with its outbox');
    await screenshots(page, 'offline-outbox');
    assert.equal((await sentWith('Yes, 10 to 4')).length, 0, 'nothing left while offline');

    await context.setOffline(false);
    await page.getByText('Live updates on').first().waitFor({ timeout: 5_000 });
    await outbox.waitFor({ state: 'detached', timeout: 5_000 });
    await page.locator('.bubble-row', { hasText: 'Yes, 10 to 4' }).first().waitFor();
    assert.equal((await sentWith('Yes, 10 to 4')).length, 1, 'sent exactly once');
    await context.close();
  });

  test('a send whose answer is lost is retried with the same Idempotency-Key and goes out once', async () => {
    const context = await browser.newContext({
      baseURL: s.t.url,
      viewport: VIEWPORTS.desktop,
      serviceWorkers: 'block',
    });
    context.setDefaultTimeout(5_000);
    const page = await context.newPage();
    await signIn(page, s.member.email, s.member.password);
    await openThread(page);
    const keys: string[] = [];
    const replays: string[] = [];
    await page.route('**/app/api/messages?**', async (route) => {
      keys.push((await route.request().allHeaders())['idempotency-key'] ?? '');
      const response = await route.fetch();
      replays.push(response.headers()['idempotent-replayed'] ?? 'false');
      // The first answer never reaches the app: the server has the text, the app cannot know.
      if (keys.length === 1) await route.abort('connectionreset');
      else await route.fulfill({ response });
    });
    await page.getByRole('textbox', { name: 'Message' }).fill('We open at 10');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('list', { name: 'Outbox' }).getByText('We open at 10').waitFor();
    await page.getByRole('list', { name: 'Outbox' }).waitFor({ state: 'detached', timeout: 6_000 });
    assert.equal(keys.length, 2);
    assert.ok(keys[0], 'the send carries a key');
    assert.equal(keys[1], keys[0], 'the retry carries the same key');
    assert.deepEqual(replays, ['false', 'true'], 'the retry is answered from the record');
    assert.equal((await sentWith('We open at 10')).length, 1, 'sent exactly once');
    await context.close();
  });
});
