// The moments where a text could go wrong: a fresh "New message", a group send that would
// leave someone out, and duplicate or unwanted contacts; in a real browser.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  assertAccessible,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
} from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const CARA = '+14155550131';
const DEV = '+14155550132';
const OUT = '+14155550133';

describe('safety in the softphone', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    for (const [phone, name] of [
      [CARA, 'Cara Jones'],
      [DEV, 'Dev Patel'],
    ] as const) {
      const res = await s.acct.test.post('/v1/contacts', { phone, name });
      assert.equal(res.status, 201, res.text);
    }
    const stop = await s.acct.test.post('/v1/sandbox/inbound', {
      from: OUT,
      to: s.acct.testNumbers[0],
      body: 'STOP',
    });
    assert.equal(stop.status, 201, stop.text);
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.member.email, s.member.password);
    await page.getByText('Live updates on').waitFor();
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  const to = () => page.getByRole('combobox', { name: 'To' });
  const chips = () => page.getByRole('list', { name: 'Recipients' }).getByRole('listitem');
  const addRecipient = async (text: string) => {
    await to().fill(text);
    await to().press('Enter');
  };

  test('"New message" always starts empty, even when already writing one', async () => {
    await page.getByRole('link', { name: 'New message' }).click();
    await addRecipient('Cara Jones');
    await page.getByRole('textbox', { name: 'Message' }).fill('half-written');
    await page.getByRole('link', { name: 'New message' }).click();
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    assert.equal(await chips().count(), 0);
    assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), '');
  });

  test('a partial name in "To" resolves to the one contact it can mean', async () => {
    await page.getByRole('link', { name: 'New message' }).click();
    await addRecipient('cara');
    assert.equal(await chips().count(), 1);
    await chips().getByText('Cara Jones').waitFor();
    await addRecipient('patel');
    assert.equal(await chips().count(), 2);
    // "a" is in both names: it means nobody in particular, and says so.
    await addRecipient('a');
    await page.getByRole('alert').filter({ hasText: 'the name of one contact' }).waitFor();
    assert.equal(await chips().count(), 2);
  });

  test('a group send that would drop an opted-out number asks first, saying who and why', async () => {
    await page.getByRole('link', { name: 'New message' }).click();
    for (const r of ['Cara Jones', 'Dev Patel', OUT]) await addRecipient(r);
    await page.getByRole('textbox', { name: 'Message' }).fill('Office closed Monday');
    await page.getByRole('button', { name: 'Send' }).click();
    const dialog = page.getByRole('dialog', { name: '1 person won’t get this text' });
    await dialog.getByText(/\(415\) 555-0133 has opted out \(texted STOP\)/).waitFor();
    await assertAccessible(page, 'group-drop confirmation');
    await screenshots(page, 'group-drop-confirmation');
    // Escape is Cancel: nothing sent, the text stays.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('alert').filter({ hasText: 'nothing was sent' }).waitFor();
    const stored = await s.t.store.db
      .selectFrom('messages')
      .select('body')
      .where('account_id', '=', s.acct.accountId)
      .execute();
    const bodies = stored.map((m) => m.body);
    assert.ok(!bodies.includes('Office closed Monday'), 'cancelled: nothing sent');
    assert.equal(
      await page.getByRole('textbox', { name: 'Message' }).inputValue(),
      'Office closed Monday',
    );

    await page.getByRole('button', { name: 'Send' }).click();
    await dialog.getByRole('button', { name: 'Send to the other 2' }).click();
    await page.getByRole('list', { name: 'Participants' }).waitFor();
    const bubble = page.locator('.bubble-row', { hasText: 'Office closed Monday' });
    await bubble.waitFor();
  });

  test('a single opted-out recipient disables sending before anything is typed', async () => {
    await page.getByRole('link', { name: 'New message' }).click();
    await addRecipient(OUT);
    await page.getByRole('status').filter({ hasText: 'has opted out' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Message' }).isDisabled(), true);
  });

  test('adding a duplicate phone warns and offers to update the existing contact; contacts can be deleted', async () => {
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByRole('button', { name: 'New contact' }).click();
    await page.getByLabel('Phone').fill('(415) 555-0131');
    await page.getByLabel('Company').fill('Jones Ltd');
    await page.getByRole('button', { name: 'Add contact' }).click();
    const warning = page
      .getByRole('alert')
      .filter({ hasText: 'Cara Jones already has this number' });
    await warning.waitFor();
    await assertAccessible(page, 'duplicate contact warning');
    await warning.getByRole('button', { name: 'Update Cara Jones instead' }).click();
    const list = page.getByRole('list', { name: 'Contacts' });
    await list.getByText(/Jones Ltd/).waitFor();
    assert.equal(await list.getByText('Cara Jones').count(), 1, 'no duplicate was added');

    await page.getByRole('button', { name: 'Edit Dev Patel' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete contact' }).click();
    await list.getByText('Dev Patel').waitFor({ state: 'detached' });
    const left = await s.t.store.db
      .selectFrom('contacts')
      .select('id')
      .where('account_id', '=', s.acct.accountId)
      .where('name', '=', 'Dev Patel')
      .execute();
    assert.equal(left.length, 0, 'deleted from the store');
  });
});
