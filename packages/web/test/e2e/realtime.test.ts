// The realtime channel under a dropped connection: the app says it is reconnecting, retries
// with backoff, and on the server's hello refetches what it missed, without a reload.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, WebSocketRoute } from 'playwright-core';
import { launchBrowser, newContext, signIn } from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

describe('realtime reconnection', () => {
  let s: Softphone;
  let browser: Browser;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  test('after the socket drops, the inbox reconnects and catches up on what it missed', async () => {
    const context = await newContext(browser, s.t.url);
    // Every socket of the page passes through here, so the test can cut it and refuse retries.
    const open: WebSocketRoute[] = [];
    let refuse = false;
    let attempts = 0;
    await context.routeWebSocket(/\/app\/ws/, (ws) => {
      attempts += 1;
      if (refuse) {
        ws.close({ code: 1006, reason: 'network down' });
        return;
      }
      ws.connectToServer();
      open.push(ws);
    });
    const page = await context.newPage();
    await signIn(page, s.owner.email, s.owner.password);
    await page.getByText('Live updates on').waitFor();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));

    refuse = true;
    const before = attempts;
    for (const ws of open.splice(0)) await ws.close({ code: 1006, reason: 'network down' });
    await page.getByText('Reconnecting…').waitFor();

    // Sent while the app is cut off: no push can reach it.
    const line = s.acct.testNumbers[0]!;
    const missed = await s.acct.test.post('/v1/messages', {
      from: line,
      to: '+14155550160',
      body: 'Sent while you were offline',
    });
    assert.equal(missed.status, 201);
    const call = await s.acct.test.post('/v1/sandbox/calls', {
      from: '+14155550161',
      to: line,
      outcome: 'missed',
    });
    assert.equal(call.status, 201);
    await page.waitForTimeout(1200);
    assert.equal(await page.getByText('Sent while you were offline').count(), 0);
    assert.ok(attempts > before, 'the app kept retrying while refused');

    // Back online: the next retry gets through and the hello triggers the catch-up.
    refuse = false;
    await page
      .getByRole('link', { name: /Sent while you were offline/ })
      .waitFor({ timeout: 10_000 });
    await page.getByText('Live updates on').waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Calls' })
      .click();
    await page.locator(`[data-call-id="${call.body.id}"]`).waitFor();
    assert.equal(
      await page.evaluate(() => (window as unknown as { marker?: number }).marker),
      7,
      'no reload',
    );
    await context.close();
  });
});
