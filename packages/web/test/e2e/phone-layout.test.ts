// Phones: which line a thread or call is on, a per-line view, nothing clipped (calls, webhooks,
// dashboard tabs), touch targets of at least 44 px, and Escape closing the call confirmation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  assertAccessible,
  launchBrowser,
  screenshots,
  signIn,
  VIEWPORTS,
} from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const MIN_TARGET = 44;

describe('on a phone', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;
  let lines: string[];

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    lines = s.acct.testNumbers;
    for (const [i, from] of ['+14155550151', '+14155550152'].entries()) {
      const res = await s.acct.test.post('/v1/sandbox/inbound', {
        from,
        to: lines[i],
        body: `Hello line ${i + 1}`,
      });
      assert.equal(res.status, 201, res.text);
    }
    const call = await s.acct.test.post('/v1/sandbox/calls', {
      from: '+14155550151',
      to: lines[0],
      outcome: 'missed',
    });
    assert.equal(call.status, 201, call.text);
    const hook = await s.acct.test.post('/v1/webhook_endpoints', {
      url: `http://127.0.0.1:9/a/very/long/path/that/would/push/the/card/wider/than/a/phone/${'x'.repeat(80)}`,
      events: ['message.received'],
    });
    assert.equal(hook.status, 201, hook.text);
    const context = await browser.newContext({
      baseURL: s.t.url,
      viewport: VIEWPORTS.phone,
      hasTouch: true,
      isMobile: true,
    });
    context.setDefaultTimeout(5_000);
    page = await context.newPage();
    await signIn(page, s.owner.email, s.owner.password);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  /** Elements wider than the screen or clipped inside their own box. */
  const clipped = (selector: string) =>
    page.evaluate(
      (sel) =>
        [...document.querySelectorAll<HTMLElement>(sel)]
          .filter(
            (el) =>
              el.scrollWidth > el.clientWidth + 1 ||
              el.getBoundingClientRect().right > window.innerWidth + 1,
          )
          .map((el) => `${sel}: ${el.scrollWidth} > ${el.clientWidth}`),
      selector,
    );

  /** Visible controls smaller than a fingertip. */
  const smallTargets = () =>
    page.evaluate((min) => {
      const controls = document.querySelectorAll<HTMLElement>(
        'button, a.button, a.icon-button, a.rail-link, a.tab, a.conversation, select, input:not([type=radio]):not([type=checkbox]), textarea, .mode-option',
      );
      return [...controls]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && (r.height < min - 0.5 || r.width < min - 0.5);
        })
        .map((el) => {
          const r = el.getBoundingClientRect();
          return `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? el.getAttribute('aria-label') ?? '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`;
        });
    }, MIN_TARGET);

  test('threads say which line they are on, and the inbox shows one line at a time', async () => {
    const list = page.getByRole('list', { name: 'Conversations' });
    await list.getByText('Hello line 1').waitFor();
    await list
      .getByText(/on \(\d{3}\) \d{3}-\d{4}/)
      .first()
      .waitFor();
    await page.getByRole('combobox', { name: 'Line' }).selectOption(lines[1]!);
    await list.getByText('Hello line 2').waitFor();
    assert.equal(await list.getByText('Hello line 1').count(), 0);
    assert.deepEqual(await smallTargets(), []);
    await page.getByRole('combobox', { name: 'Line' }).selectOption('');
    await list.getByText('Hello line 1').click();
    await page
      .locator('.thread-heading')
      .getByText(/via \(\d{3}\) \d{3}-\d{4}/)
      .waitFor();
    assert.deepEqual(await smallTargets(), []);
  });

  test('call rows fit, say their line, and Escape closes the call confirmation', async () => {
    await page.goto('/app/calls');
    await page
      .getByRole('list', { name: 'Call history' })
      .getByText(/on \(\d{3}\) \d{3}-\d{4}/)
      .waitFor();
    assert.deepEqual(await clipped('.call-row'), []);
    assert.deepEqual(await smallTargets(), []);
    await assertAccessible(page, 'calls on a phone');
    await screenshots(page, 'phone-calls');

    await page.goto('/app/link?action=call&to=%2B14155550151');
    const prompt = page.getByRole('alertdialog');
    await prompt.waitFor();
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });
  });

  test('every dashboard tab is on screen and the webhook card does not clip', async () => {
    await page.goto('/app/dashboard');
    const tabs = page.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('link');
    for (const name of ['Team', 'Settings']) {
      const box = await tabs.filter({ hasText: name }).boundingBox();
      assert.ok(box, `${name} tab shown`);
      assert.ok(
        box.x >= 0 && box.x + box.width <= VIEWPORTS.phone.width,
        `${name} tab within the screen`,
      );
    }
    await tabs.filter({ hasText: 'Webhooks' }).click();
    await page
      .getByText(/a\/very\/long\/path/)
      .first()
      .waitFor();
    assert.deepEqual(await clipped('.endpoint'), []);
    assert.deepEqual(await clipped('.card'), []);
    assert.deepEqual(await smallTargets(), []);
    await screenshots(page, 'phone-webhooks');
  });
});
