// The team workflow in two browsers signed in as two teammates: done and reopen, their own
// read state, assignment, internal notes with mentions, and "… is replying", all live.
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

describe('team workflow in the softphone', () => {
  let s: Softphone;
  let browser: Browser;
  let olivia: Page;
  let max: Page;
  let phoneCounter = 0;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    olivia = await (await newContext(browser, s.t.url)).newPage();
    max = await (await newContext(browser, s.t.url)).newPage();
    await signIn(olivia, s.owner.email, s.owner.password);
    await signIn(max, s.member.email, s.member.password);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  async function inbound(body: string, from = `+1415555${String(7000 + ++phoneCounter)}`) {
    const res = await s.acct.test.post('/v1/sandbox/inbound', {
      to: s.acct.testNumbers[0],
      from,
      body,
    });
    assert.equal(res.status, 201, res.text);
    return { from, conversationId: (res.body as { conversationId: string }).conversationId };
  }

  const row = (page: Page, id: string) => page.locator(`a[data-conversation-id="${id}"]`);
  const open = async (page: Page, id: string) => {
    await page.goto(`/app/inbox/${id}`);
    await page.getByRole('group', { name: 'Team' }).waitFor();
  };

  test('two teammates have separate read state: one reading does not clear the other', async () => {
    const { conversationId: id } = await inbound('Is the van free Friday?');
    await row(olivia, id).locator('.badge').waitFor();
    await row(max, id).locator('.badge').waitFor();
    await open(olivia, id);
    await olivia.goto('/app/inbox');
    await row(olivia, id).waitFor();
    assert.equal(await row(olivia, id).locator('.badge').count(), 0, 'read by Olivia');
    await max.waitForTimeout(300);
    assert.equal(await row(max, id).locator('.badge').textContent(), '1', 'still unread for Max');
    await max.reload();
    await row(max, id).locator('.badge').waitFor();
  });

  test('mark unread keeps the thread unread for that user across a reload', async () => {
    const { conversationId: id } = await inbound('Call me back please');
    await open(olivia, id);
    await olivia.getByRole('button', { name: 'Mark unread' }).click();
    await olivia.waitForURL(/\/app\/inbox$/);
    await row(olivia, id).locator('.badge').waitFor();
    await olivia.reload();
    await row(olivia, id).locator('.badge').waitFor();
  });

  test('a conversation marked done leaves the open list on every device and reopens on a new text', async () => {
    const { from, conversationId: id } = await inbound('Thanks, all sorted!');
    await max.goto('/app/inbox');
    await row(max, id).waitFor();
    await open(olivia, id);
    await olivia.getByRole('button', { name: 'Mark done' }).click();
    await olivia.getByRole('button', { name: 'Reopen' }).waitFor();
    await row(max, id).waitFor({ state: 'detached' });
    await max.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Done' }).click();
    await row(max, id).waitFor();
    await max.reload();
    await max.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Done' }).click();
    await row(max, id).waitFor();
    await inbound('Actually, one more question', from);
    await row(max, id).waitFor({ state: 'detached' });
    await olivia.getByRole('button', { name: 'Mark done' }).waitFor();
    await max.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Open' }).click();
    await row(max, id).waitFor();
  });

  test('an assignment shows live in the other inbox under "Mine" and not under "Unassigned"', async () => {
    const { conversationId: id } = await inbound('Quote for a boiler?');
    await max.goto('/app/inbox');
    const show = max.getByRole('group', { name: 'Show' });
    await show.getByRole('button', { name: 'Unassigned' }).click();
    await row(max, id).waitFor();
    await open(olivia, id);
    await olivia.getByLabel('Assignee').selectOption({ label: 'Max Member' });
    await row(max, id).waitFor({ state: 'detached' });
    await show.getByRole('button', { name: 'Mine' }).click();
    await row(max, id).waitFor();
    assert.match((await row(max, id).textContent()) ?? '', /Max Member/);
    await olivia.reload();
    await olivia.getByRole('group', { name: 'Team' }).waitFor();
    assert.equal(
      await olivia.getByLabel('Assignee').locator('option:checked').textContent(),
      'Max Member',
    );
    await show.getByRole('button', { name: 'All' }).click();
  });

  test('an internal note shows in both threads, is never sent, and a teammate typing is shown', async () => {
    const { conversationId: id } = await inbound('Can I pay by card?');
    const sendsBefore = await s.t.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('conversation_id', '=', id)
      .executeTakeFirstOrThrow();
    await open(olivia, id);
    await open(max, id);
    await olivia
      .getByRole('group', { name: 'Write' })
      .getByRole('button', { name: 'Internal note' })
      .click();
    const box = olivia.getByLabel('Internal note', { exact: true });
    await box.pressSequentially('Yes, @Max please send the link', { delay: 10 });
    await max.getByText('Olivia Owner is replying…').waitFor();
    await olivia.getByRole('button', { name: 'Add note' }).click();
    const note = max.locator('.note', { hasText: 'Yes, @Max please send the link' });
    await note.waitFor();
    assert.match((await note.textContent()) ?? '', /Internal note · Olivia Owner/);
    await max.getByText('Olivia Owner is replying…').waitFor({ state: 'detached' });
    await max.reload();
    await note.waitFor();
    const sendsAfter = await s.t.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('conversation_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(sendsAfter.n), Number(sendsBefore.n), 'a note is not a message');
    await assertAccessible(max, 'a thread with a note');
    await screenshots(max, 'thread-team-note');
  });
});
