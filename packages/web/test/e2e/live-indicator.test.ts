// The connection indicator tells the truth: off as soon as the browser loses its network or the
// server starts to stop, back on once pushes can arrive again.
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newContext, signIn } from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

describe('the live indicator', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;
  let closed = false;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.member.email, s.member.password);
    await page.getByText('Live updates on').waitFor();
  });
  after(async () => {
    await browser?.close();
    if (!closed) await s?.t.close();
  });

  test('going offline turns it off at once, and coming back online turns it on again', async () => {
    await page.context().setOffline(true);
    await page.getByText('Offline: no network').waitFor({ timeout: 1_000 });
    await page.context().setOffline(false);
    await page.getByText('Live updates on').waitFor({ timeout: 3_000 });
  });

  test('a server that starts stopping turns it off within a second', async () => {
    closed = true;
    const closing = s.t.close();
    await page.getByText('Reconnecting…').waitFor({ timeout: 1_000 });
    await closing;
  });
});
