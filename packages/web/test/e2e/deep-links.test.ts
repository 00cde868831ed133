// Deep links (spec 4.6) in a real browser: they pre-address the composer or the dialer and
// never send by themselves; malformed ones land on the inbox without a word.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, launchBrowser, newContext, signIn } from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const CUSTOMER = '+14155550140';

describe('deep links', () => {
  let s: Softphone;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    context = await newContext(browser, s.t.url);
    // Record what the app registers as a protocol handler (headless Chromium has no UI for it).
    await context.addInitScript(() => {
      const calls: unknown[][] = [];
      (window as unknown as { handlerCalls: unknown[][] }).handlerCalls = calls;
      navigator.registerProtocolHandler = (...args: unknown[]) => void calls.push(args);
    });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  /** Every message of the account, straight from the database. */
  async function messageCount(): Promise<number> {
    const row = await s.t.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', s.acct.accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  const composer = () => page.getByRole('textbox', { name: 'Message' });

  test('a link opened while signed out applies after signing in', async () => {
    await page.goto(`/app/link?action=sms&to=%2B14155550140&body=Hi%20from%20the%20link`);
    await signIn(page, s.owner.email, s.owner.password);
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    assert.equal(await composer().inputValue(), 'Hi from the link');
    const registered = await page.evaluate(
      () => (window as unknown as { handlerCalls: unknown[][] }).handlerCalls,
    );
    assert.deepEqual(registered[0], ['web+switchboard', '/app/link?uri=%s']);
  });

  test('an sms link fills the composer, picks the line, and sends nothing by itself', async () => {
    const before = await messageCount();
    const second = s.acct.testNumbers[1]!;
    const body = 'Your table for 4 is ready – reply YES to confirm';
    await page.goto(
      `/app/link?action=sms&to=%2B14155550140&from=${encodeURIComponent(second)}&body=${encodeURIComponent(body)}`,
    );
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/inbox/new', 'the link is replaced in history');
    const chips = page.getByRole('list', { name: 'Recipients' });
    await chips.getByText('(415) 555-0140').waitFor();
    assert.equal(await composer().inputValue(), body);
    assert.equal(await page.getByLabel('From').inputValue(), second);
    await assertAccessible(page, 'composer from a deep link');

    // Nothing goes out on its own.
    await page.waitForTimeout(1000);
    assert.equal(await messageCount(), before);

    // The draft is editable, and sending is the user's act.
    await composer().fill(`${body}!`);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble-row.outbound', { hasText: `${body}!` }).waitFor();
    assert.equal(await messageCount(), before + 1);
    const sent = await s.t.store.db
      .selectFrom('messages')
      .select(['from_phone', 'body'])
      .where('account_id', '=', s.acct.accountId)
      .where('body', '=', `${body}!`)
      .executeTakeFirstOrThrow();
    assert.equal(sent.from_phone, second);
  });

  test('the body is cut at 1000 characters, never inside a character', async () => {
    const long = 'x'.repeat(995) + '😀'.repeat(10);
    await page.goto(`/app/link?action=sms&to=%2B14155550140&body=${encodeURIComponent(long)}`);
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    const value = await composer().inputValue();
    assert.equal([...value].length, 1000);
    assert.equal(value, 'x'.repeat(995) + '😀'.repeat(5));
  });

  test('a web+switchboard: link, as the browser hands it over, opens the same composer', async () => {
    const uri = 'web+switchboard:sms?to=%2B14155550141&body=Sent%20via%20the%20handler';
    await page.goto(`/app/link?uri=${encodeURIComponent(uri)}`);
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    await page.getByRole('list', { name: 'Recipients' }).getByText('(415) 555-0141').waitFor();
    assert.equal(await composer().inputValue(), 'Sent via the handler');
  });

  test('a malformed number or an unknown action lands on the inbox, silently', async () => {
    const before = await messageCount();
    for (const link of [
      '/app/link?action=sms&to=4155550140&body=no%20plus',
      '/app/link?action=sms&to=%2B1415&body=too%20short',
      '/app/link?action=fax&to=%2B14155550140',
      '/app/link?action=sms',
      '/app/link?uri=mailto%3Aa%40example.com',
    ]) {
      await page.goto(link);
      await page.getByRole('heading', { name: /^Inbox/ }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/app/inbox', link);
      assert.equal(await page.getByRole('alert').count(), 0, `${link}: no error shown`);
      assert.equal(await composer().count(), 0, `${link}: no composer`);
    }
    assert.equal(await messageCount(), before);
  });

  /** A page of its own for a call link: its hand-off of `tel:` to the system comes after the
   * dialer says "Calling…", and would abort whatever the next test opens on a shared page. */
  const onOwnPage = async (body: (page: Page) => Promise<void>) => {
    const own = await context.newPage();
    try {
      await body(own);
    } finally {
      await own.close();
    }
  };

  test('a call link asks before dialling; `from` is ignored', async () => {
    await onOwnPage(async (page) => {
      await page.goto('/app/link?action=call&to=%2B14155550142&from=%2B19995550100&body=ignored');
      await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
      const prompt = page.getByRole('alertdialog');
      await prompt.getByText('Call (415) 555-0142?').waitFor();
      assert.equal(await page.getByText('(999) 555-0100').count(), 0);
      assert.equal(await page.getByText('ignored').count(), 0);
      await assertAccessible(page, 'call prompt');
      // No voice on this server: the number goes to the phone app once the server has said so.
      const noVoice = page.waitForResponse((res) => res.url().includes('/app/api/voice'));
      await prompt.getByRole('button', { name: 'Call' }).click();
      await page.getByText('Calling (415) 555-0142…').waitFor();
      assert.equal((await noVoice).status(), 404);
    });
  });

  test('a call link with ad=1 skips the prompt', async () => {
    await onOwnPage(async (page) => {
      await page.goto('/app/link?action=call&to=%2B14155550143&ad=1');
      await page.getByText('Calling (415) 555-0143…').waitFor();
      assert.equal(await page.getByRole('alertdialog').count(), 0);
    });
  });

  test('a link to someone with a thread points to it', async () => {
    await s.acct.test.post('/v1/sandbox/inbound', {
      from: CUSTOMER,
      to: s.acct.testNumbers[0],
      body: 'Hello',
    });
    await page.goto('/app/link?action=sms&to=%2B14155550140');
    await page.getByText('You already have a conversation with (415) 555-0140.').waitFor();
    assert.equal(await composer().inputValue(), '');
  });

  test('opening that thread from a link carries its draft along, unsent', async () => {
    // A page of its own, as for the call links above.
    const fresh = await context.newPage();
    try {
      await fresh.goto('/app/link?action=sms&to=%2B14155550140&body=Running%20late');
      await fresh.getByText('You already have a conversation with (415) 555-0140.').waitFor();
      await fresh.getByRole('textbox', { name: 'Message' }).fill('Running late, sorry');
      await fresh.getByRole('link', { name: 'Open it' }).click();
      await fresh.getByRole('heading', { name: 'New message' }).waitFor({ state: 'detached' });
      assert.match(new URL(fresh.url()).pathname, /^\/app\/inbox\/cv_/);
      assert.equal(
        await fresh.getByRole('textbox', { name: 'Message' }).inputValue(),
        'Running late, sorry',
      );
      const sent = await s.t.store.db.selectFrom('messages').select('body').execute();
      assert.equal(sent.filter((m) => m.body.startsWith('Running late')).length, 0, 'nothing sent');
    } finally {
      await fresh.close();
    }
  });
});
