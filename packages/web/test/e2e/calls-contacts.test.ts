// Call history and the shared directory in a real browser: missed calls with caller ID, live
// updates, creating, searching and editing contacts, and names following every edit.
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

const GRACE = '+14155550131';
const ALAN = '+14155550132';
const UNKNOWN = '+14155550133';

describe('calls and contacts', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;
  let line: string;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    line = s.acct.testNumbers[0]!;
    await s.acct.test.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper', company: 'Navy' });
    const calls = [
      { from: UNKNOWN, to: line, outcome: 'completed', duration: 185 },
      { from: line, to: GRACE, direction: 'outbound', outcome: 'completed', duration: 42 },
    ];
    for (const call of calls) {
      const res = await s.acct.test.post('/v1/sandbox/calls', call);
      assert.equal(res.status, 201, res.text);
    }
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.member.email, s.member.password);
    await page.getByText('Live updates on').waitFor();
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  test('a missed call appears live, highlighted, with the contact’s name', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Calls' })
      .click();
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    const history = page.getByRole('list', { name: 'Call history' });
    await history.getByText('Grace Hopper').waitFor();
    assert.equal(await history.getByRole('listitem').count(), 2);

    const missed = await s.acct.test.post('/v1/sandbox/calls', {
      from: GRACE,
      to: line,
      outcome: 'missed',
    });
    assert.equal(missed.status, 201, missed.text);
    const row = page.locator(`[data-call-id="${missed.body.id}"]`);
    await row.waitFor({ timeout: 1000 });
    assert.match((await row.getAttribute('class')) ?? '', /\bmissed\b/);
    assert.equal(await row.locator('.call-name').textContent(), 'Grace Hopper');
    await row.getByText('Missed call').waitFor();
    const background = await row.evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(background, 'rgba(0, 0, 0, 0)', 'missed calls are highlighted');
    // It is the newest, so first; the completed calls say direction and duration.
    assert.equal(
      await history.getByRole('listitem').first().getAttribute('data-call-id'),
      missed.body.id,
    );
    await history.getByText('Incoming · 3m 05s').waitFor();
    await history.getByText('Outgoing · 42s').waitFor();

    await page.getByRole('button', { name: /^Missed/ }).click();
    assert.equal(await history.getByRole('listitem').count(), 1);
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await assertAccessible(page, 'calls');
    await screenshots(page, 'calls');
  });

  test('calling back asks first, and Cancel dials nothing', async () => {
    await page.getByRole('button', { name: 'Call Grace Hopper' }).first().click();
    const prompt = page.getByRole('alertdialog');
    await prompt.getByText('Call Grace Hopper at (415) 555-0131?').waitFor();
    await prompt.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByRole('alertdialog').count(), 0);
  });

  test('contacts: create, search and edit; the name becomes caller ID everywhere at once', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Contacts' })
      .click();
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New contact' }).click();
    await page.getByLabel('Name').fill('Alan Turing');
    await page.getByLabel('Phone').fill('(415) 555-0132');
    await page.getByLabel('Email').fill('alan@example.com');
    await page.getByLabel('Company').fill('Bletchley');
    await page.getByRole('button', { name: 'Add contact' }).click();
    const list = page.getByRole('list', { name: 'Contacts' });
    await list.getByText('Alan Turing').waitFor();

    const search = page.getByRole('searchbox', { name: 'Search contacts' });
    await search.fill('bletch');
    assert.deepEqual(await list.locator('.contact-name').allTextContents(), ['Alan Turing']);
    await search.fill('555-0131');
    assert.deepEqual(await list.locator('.contact-name').allTextContents(), ['Grace Hopper']);
    await search.fill('nobody-like-this');
    await page.getByText('No contact matches.').waitFor();
    await search.fill('');
    await assertAccessible(page, 'contacts');
    await screenshots(page, 'contacts');

    // A text from Alan shows his name; renaming him renames the thread without a reload.
    await s.acct.test.post('/v1/sandbox/inbound', {
      from: ALAN,
      to: line,
      body: 'Did you get my notes?',
    });
    await page.getByRole('button', { name: 'Edit Alan Turing' }).click();
    await page.getByLabel('Name').fill('Alan M. Turing');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await list.getByText('Alan M. Turing').waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Inbox' })
      .click();
    await page
      .getByRole('link', { name: /Alan M\. Turing/ })
      .filter({ hasText: 'Did you get my notes?' })
      .waitFor();
  });

  test('a contact created by someone else (here, the API) names its number live', async () => {
    await s.acct.test.post('/v1/sandbox/inbound', {
      from: UNKNOWN,
      to: line,
      body: 'Who is this?',
    });
    const row = page.getByRole('link', { name: /Who is this\?/ });
    await row.getByText('(415) 555-0133').waitFor();
    const made = await s.acct.test.post('/v1/contacts', {
      phone: UNKNOWN,
      name: 'Katherine Johnson',
    });
    assert.equal(made.status, 201);
    await row.getByText('Katherine Johnson').waitFor({ timeout: 1000 });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Calls' })
      .click();
    await page.getByRole('list', { name: 'Call history' }).getByText('Katherine Johnson').waitFor();
  });
});
