// The dashboard's carrier connections in a real browser against a real SMSC (Net::SMPP): an
// owner adds one and watches it bind, sees a live text counted, pauses, resumes and removes
// it; a wrong password shows the SMSC's reason. A Twilio connection shows the webhook URLs
// to paste into Twilio's console.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addNumber } from '../../../server/src/commands/add-number.ts';
import { freePort } from '../../../server/test/support/processes.ts';
import { startPerlSmsc, type SmscPeer } from '../../../server/test/support/smsc-peer.ts';
import {
  assertAccessible,
  eventually,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
} from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const LINE = '+14155550997';
const PUBLIC_URL = 'https://sms.example.com';

describe('the dashboard’s carrier connections', () => {
  let s: Softphone;
  let browser: Browser;
  let peer: SmscPeer;
  let page: Page;

  before(async () => {
    [s, browser, peer] = await Promise.all([
      startSoftphone({ env: { SWITCHBOARD_PUBLIC_URL: PUBLIC_URL } }),
      launchBrowser(),
      freePort().then((port) => startPerlSmsc({ port })),
    ]);
    await s.t.store.write((tx) =>
      addNumber(
        tx,
        { accountId: s.acct.accountId, mode: 'live', phone: LINE },
        { clock: { now: () => Date.now() } },
      ),
    );
    page = await (await newContext(browser, s.t.url)).newPage();
    // Removing asks first; the owner says yes.
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(page, s.owner.email, s.owner.password);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
    await peer?.stop();
  });

  const row = () => page.locator('[data-carrier]').first();
  const status = () => row().locator('[data-status]');

  async function addConnection(password: string) {
    await page.goto('/app/dashboard/carriers');
    const form = page.getByRole('form', { name: 'Add an SMPP connection' });
    await form.waitFor();
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByLabel('Port').fill(String(peer.port));
    await form.getByLabel('System ID').fill('test');
    await form.getByLabel('Password').fill(password);
    await form.getByRole('button', { name: 'Add connection' }).click();
    await row().waitFor();
  }

  test('a connection added with the wrong password shows failed with the SMSC’s reason', async () => {
    await addConnection('wrong');
    await eventually(
      async () => (await status().getAttribute('data-status')) === 'failed',
      'the connection to show failed',
    );
    assert.match((await row().textContent()) ?? '', /ESME_RINVPASWD/);
    assert.ok(!(await page.content()).includes('wrong'), 'the password is never shown');
    await row().getByRole('button', { name: 'Remove' }).click();
  });

  test('added, it binds; a live text is counted; paused, resumed and removed, all live', async () => {
    await eventually(async () => (await page.locator('[data-carrier]').count()) === 0, 'removed');
    await addConnection('secret');
    await eventually(
      async () => (await status().getAttribute('data-status')) === 'bound',
      'the connection to show bound',
    );
    await assertAccessible(page, 'dashboard: carriers');
    await screenshots(page, 'dashboard-carriers');

    const res = await s.acct.live.post('/v1/messages', {
      from: LINE,
      to: '+447700900123',
      body: 'Counted on the dashboard',
    });
    assert.equal(res.status, 201, res.text);
    await eventually(
      async () => /1 sent/.test((await row().textContent()) ?? ''),
      'the sent count to show 1',
    );

    await row().getByRole('button', { name: 'Pause' }).click();
    await eventually(
      async () => (await status().getAttribute('data-status')) === 'paused',
      'paused',
    );
    const unbinds = peer.received('unbind').length;
    assert.ok(unbinds >= 1, 'the bind was ended');
    await row().getByRole('button', { name: 'Resume' }).click();
    await eventually(
      async () => (await status().getAttribute('data-status')) === 'bound',
      'bound again',
    );
    await row().getByRole('button', { name: 'Remove' }).click();
    await eventually(async () => (await page.locator('[data-carrier]').count()) === 0, 'gone');
  });

  test('a Twilio connection added from the dashboard shows the webhook URLs for its console, never the token', async () => {
    await page.goto('/app/dashboard/carriers');
    const form = page.locator('form', {
      has: page.getByRole('heading', { name: 'Add a Twilio or Telnyx connection' }),
    });
    await form.getByLabel('Provider').selectOption('twilio');
    await form.getByLabel('Account SID').fill(`AC${'1'.repeat(32)}`);
    await form.getByLabel('Auth token').fill('twilio-auth-token-42');
    await form.getByRole('button', { name: 'Add Twilio connection' }).click();
    await row().waitFor();
    const text = (await row().textContent()) ?? '';
    assert.match(text, new RegExp(`Twilio AC${'1'.repeat(32)}`));
    const id = await row().getAttribute('data-carrier');
    assert.ok(text.includes(`${PUBLIC_URL}/v1/carriers/${id}/inbound`), text);
    assert.ok(text.includes(`${PUBLIC_URL}/v1/carriers/${id}/status`), text);
    assert.ok(!(await page.content()).includes('twilio-auth-token-42'), 'the token is never shown');
    await assertAccessible(page, 'dashboard: carriers with Twilio');
    await row().getByRole('button', { name: 'Remove' }).click();
    await eventually(async () => (await page.locator('[data-carrier]').count()) === 0, 'gone');
  });
});
