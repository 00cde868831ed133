// The composer offers pictures (and media links) only on lines whose connection carries media:
// the sandbox's test lines and Twilio or Telnyx lines, never an SMPP line, where the API would
// refuse an MMS. In a real browser, choosing the line in a new conversation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addCarrier } from '../../../server/src/commands/add-carrier.ts';
import { addNumber } from '../../../server/src/commands/add-number.ts';
import { launchBrowser, newContext, signIn } from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const SMPP_LINE = '+15559870101';
const TWILIO_LINE = '+15559870102';

describe('the picture picker follows the line', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    const deps = { clock: { now: () => Date.now() }, seal: (x: string) => s.t.secrets.seal(x) };
    // Nothing listens on port 9: the SMPP connection stays down, which the composer does not mind.
    const smpp = await s.t.store.write((tx) =>
      addCarrier(
        tx,
        s.acct.accountId,
        { type: 'smpp', host: '127.0.0.1', port: 9, systemId: 'test', password: 'secret' },
        deps,
      ),
    );
    const twilio = await s.t.store.write((tx) =>
      addCarrier(
        tx,
        s.acct.accountId,
        {
          type: 'twilio',
          accountSid: `AC${'1'.repeat(32)}`,
          authToken: 'token-token',
          apiBase: 'http://127.0.0.1:9',
        },
        deps,
      ),
    );
    for (const [phone, carrierId] of [
      [SMPP_LINE, smpp.id],
      [TWILIO_LINE, twilio.id],
    ] as const) {
      await s.t.store.write((tx) =>
        addNumber(tx, { accountId: s.acct.accountId, mode: 'live', phone, carrierId }, deps),
      );
    }
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.owner.email, s.owner.password);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  const picker = () => page.getByRole('button', { name: 'Attach a picture' });
  const mediaLink = () => page.getByRole('button', { name: 'Attach a media link' });
  const from = () => page.getByLabel('From');

  test('a test line (the sandbox) offers pictures', async () => {
    await page.goto('/app/inbox/new');
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    await picker().waitFor();
    assert.equal(await mediaLink().count(), 1);
  });

  test('an SMPP line offers no picture or media link; a Twilio line does', async () => {
    await page.goto('/app/inbox');
    await page.getByRole('radio', { name: 'Live' }).first().check();
    await page.goto('/app/inbox/new');
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    await from().selectOption(SMPP_LINE);
    await picker().waitFor({ state: 'detached' });
    assert.equal(await mediaLink().count(), 0);
    await from().selectOption(TWILIO_LINE);
    await picker().waitFor();
    assert.equal(await mediaLink().count(), 1);
    await from().selectOption(SMPP_LINE);
    await picker().waitFor({ state: 'detached' });
  });
});
