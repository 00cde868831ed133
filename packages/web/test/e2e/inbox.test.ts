// The shared inbox in a real browser: API sends arriving live, the composer's send flow with
// its statuses and webhooks, opt-outs, failures, media and the mode switch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  assertAccessible,
  eventually,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
} from '../support/browser.ts';
import { startMediaHost } from '../../../server/test/support/media-host.ts';
import { startReceiver, type WebhookReceiver } from '../support/receiver.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const ADA = '+14155550123';
const BOB = '+14155550124';

describe('the shared inbox', () => {
  let s: Softphone;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let page: Page;
  let line: string;

  before(async () => {
    [s, browser, receiver] = await Promise.all([
      startSoftphone(),
      launchBrowser(),
      startReceiver(),
    ]);
    line = s.acct.testNumbers[0]!;
    const hook = await s.acct.test.post('/v1/webhook_endpoints', {
      url: receiver.url,
      events: ['message.received', 'message.delivered', 'message.failed'],
    });
    assert.equal(hook.status, 201, hook.text);
    const ada = await s.acct.test.post('/v1/contacts', { phone: ADA, name: 'Ada Lovelace' });
    assert.equal(ada.status, 201, ada.text);
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.owner.email, s.owner.password);
    await page.getByText('Live updates on').waitFor();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await s?.t.close();
  });

  /** `curl -X POST $SB/messages -H 'Authorization: Bearer …'`, from outside the browser. */
  function curlSend(body: Record<string, unknown>) {
    return fetch(`${s.t.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.acct.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  test('a message sent with the API shows up in every open inbox within a second, without reload', async () => {
    const member = await (await newContext(browser, s.t.url)).newPage();
    await signIn(member, s.member.email, s.member.password);
    await member.getByText('Live updates on').waitFor();
    // A reload would clear this; it must survive.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

    const text = `Your plumber arrives at 3pm (${Date.now()})`;
    const started = Date.now();
    const response = await curlSend({ from: line, to: ADA, body: text });
    assert.equal(response.status, 201);
    const row = (p: Page) =>
      p.getByRole('link', { name: /Ada Lovelace/ }).filter({ hasText: text });
    await Promise.all([
      row(page).waitFor({ timeout: 1000 }),
      row(member).waitFor({ timeout: 1000 }),
    ]);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 1000, `appeared after ${elapsed} ms`);
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42);

    // An inbound reply: unread in bold with a count, announced to screen readers.
    const reply = await s.acct.test.post('/v1/sandbox/inbound', {
      from: ADA,
      to: line,
      body: 'Great, see you then',
    });
    assert.equal(reply.status, 201);
    const ada = page.getByRole('link', { name: /Ada Lovelace/ }).first();
    await ada.getByLabel('1 unread').waitFor();
    await eventually(
      async () =>
        (await page.getByRole('status').first().textContent())?.includes(
          'New message from Ada Lovelace',
        ),
      'the live region to announce the text',
    );
    await member.context().close();
  });

  test('the inbox lists conversations newest first and is accessible at every width', async () => {
    await s.acct.test.post('/v1/sandbox/inbound', {
      from: BOB,
      to: line,
      body: 'Is the invoice ready?',
    });
    await page.getByRole('link', { name: /Is the invoice ready/ }).waitFor();
    const names = await page.locator('.conversation-name').allTextContents();
    assert.equal(names[0], '(415) 555-0124', 'the newest conversation first, shown by number');
    assert.ok(names.includes('Ada Lovelace'), 'contacts show by name');
    await assertAccessible(page, 'inbox');
    await screenshots(page, 'inbox');
  });

  test('keyboard: arrows walk the list, Enter opens a thread, Enter in the composer sends', async () => {
    const first = page.locator('a.conversation').first();
    await first.focus();
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
    assert.match(focused, /Ada Lovelace/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Ada Lovelace', level: 2 }).waitFor();
    // Opening it marked it read, for the whole team.
    await eventually(
      async () =>
        (await page
          .getByRole('link', { name: /Ada Lovelace/ })
          .getByLabel(/unread/)
          .count()) === 0,
      'unread to clear',
    );

    const composer = page.getByRole('textbox', { name: 'Message' });
    await eventually(
      async () => composer.evaluate((el) => el === document.activeElement),
      'composer focus',
    );
    const text = `Running 5 minutes late (${Date.now()})`;
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    const bubble = page.locator('.bubble-row').filter({ hasText: text });
    await bubble.waitFor();
    assert.match(
      (await bubble.locator('.bubble-author').textContent()) ?? '',
      new RegExp(s.owner.name),
    );
  });

  test('a text sent from the composer reaches delivered and fires the webhook', async () => {
    const text = `Invoice attached, thanks! (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    const bubble = page.locator('.bubble-row').filter({ hasText: text });
    await bubble.locator('[data-status="delivered"]').waitFor({ timeout: 5000 });
    const id = await bubble.getAttribute('data-message-id');
    assert.match(id ?? '', /^msg_/);
    const delivered = await eventually(
      async () =>
        receiver.deliveries.find(
          (d) => d.body.type === 'message.delivered' && d.body.data.id === id,
        ),
      'message.delivered at the webhook receiver',
    );
    assert.equal(delivered.body.data.senderName, s.owner.name);
    assert.equal(delivered.body.data.from, line);
    assert.equal(delivered.body.data.to, ADA);
    assert.match(String(delivered.headers['x-service-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
    await assertAccessible(page, 'thread');
    await screenshots(page, 'thread');
    // The dark palette must hold the same contrast (no transitions: check the final colours).
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await assertAccessible(page, 'thread, dark');
    await screenshots(page, 'thread-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  test('an opted-out thread is marked and its composer disabled with the reason; START re-enables it live', async () => {
    const stop = await s.acct.test.post('/v1/sandbox/inbound', {
      from: BOB,
      to: line,
      body: 'STOP',
    });
    assert.equal(stop.status, 201);
    const row = page.getByRole('link', { name: /555-0124/ }).first();
    await row.getByText('Opted out').waitFor();
    await row.click();
    await page.getByRole('heading', { name: /\(415\) 555-0124/, level: 2 }).waitFor();
    await page.locator('.thread-heading').getByText('Opted out').waitFor();
    // The platform's confirmation is in the thread, attributed to Auto-reply.
    await page
      .locator('.bubble-row.outbound .bubble-author', { hasText: 'Auto-reply' })
      .first()
      .waitFor();
    const box = page.getByRole('textbox', { name: 'Message' });
    assert.equal(await box.isDisabled(), true, 'nothing can be typed to an opted-out number');
    assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true);
    await page.getByRole('status').filter({ hasText: 'texted STOP and has opted out' }).waitFor();
    await assertAccessible(page, 'opted-out thread');
    await screenshots(page, 'thread-opted-out');

    const start = await s.acct.test.post('/v1/sandbox/inbound', {
      from: BOB,
      to: line,
      body: 'START',
    });
    assert.equal(start.status, 201);
    await eventually(
      async () => (await box.isEnabled()) || undefined,
      'the composer enabled again',
    );
    assert.equal(await page.locator('.thread-heading').getByText('Opted out').count(), 0);
  });

  test('a failed text shows as failed, with the reason', async () => {
    await page.getByRole('link', { name: 'New message' }).click();
    await page.getByRole('combobox', { name: 'To' }).fill('+15005550002');
    await page.getByRole('combobox', { name: 'To' }).press('Enter');
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    const bubble = page.locator('.bubble-row', { hasText: 'Hello?' });
    await bubble.locator('[data-status="failed"]').waitFor();
    await bubble.getByText('Rejected by the carrier').waitFor();
  });

  test('a group thread: new message to several numbers, participants and their statuses', async () => {
    await page.getByRole('link', { name: 'New message' }).click();
    await page.getByRole('heading', { name: 'New message' }).waitFor();
    const to = page.getByRole('combobox', { name: 'To' });
    for (const entry of ['Ada Lovelace', '(415) 555-0125', '+15005550001']) {
      await to.fill(entry);
      await to.press('Enter');
    }
    const chips = page.getByRole('list', { name: 'Recipients' }).getByRole('listitem');
    assert.equal(await chips.count(), 3);
    await page.getByText('This starts a group conversation with 3 people.').waitFor();
    await assertAccessible(page, 'new message');
    await page.getByRole('textbox', { name: 'Message' }).fill('Team lunch on Friday?');
    await page.getByRole('button', { name: 'Send' }).click();

    await page.getByRole('list', { name: 'Participants' }).waitFor();
    const participants = await page
      .getByRole('list', { name: 'Participants' })
      .getByRole('listitem')
      .allTextContents();
    assert.equal(participants.length, 3);
    assert.ok(participants.some((p) => p.includes('Ada Lovelace')));
    assert.match((await page.locator('.thread-heading p').textContent()) ?? '', /Group · 3 people/);
    const bubble = page.locator('.bubble-row', { hasText: 'Team lunch on Friday?' });
    await bubble.getByText('Delivered to 2 of 3').waitFor({ timeout: 5000 });
    await bubble.getByText('Delivered to 2 of 3').click();
    const statuses = bubble.locator('.group-statuses li');
    assert.equal(await statuses.count(), 3);
    assert.equal(await bubble.locator('.group-statuses [data-status="failed"]').count(), 1);
    assert.equal(await bubble.locator('.group-statuses [data-status="delivered"]').count(), 2);

    // A participant answers in the group; the reply is attributed to them.
    const conversationId = page.url().split('/').pop()!;
    const reply = await s.acct.test.post('/v1/sandbox/inbound', {
      from: ADA,
      to: line,
      conversationId,
      body: 'Friday works for me',
    });
    assert.equal(reply.status, 201, reply.text);
    const inbound = page.locator('.bubble-row.inbound', { hasText: 'Friday works for me' });
    await inbound.waitFor();
    assert.equal(await inbound.locator('.bubble-author').textContent(), 'Ada Lovelace');
    await screenshots(page, 'group-thread');
  });

  test('media: pictures and files sent or received show in the thread', async () => {
    const sent = await curlSend({
      from: line,
      to: ADA,
      body: 'Here is the quote',
      mediaUrls: ['https://cdn.example.com/quote.pdf'],
    });
    assert.equal(sent.status, 201);
    // The received picture is fetched into the media store from a host on 127.0.0.1.
    const host = await startMediaHost();
    const received = await s.acct.test.post('/v1/sandbox/inbound', {
      from: ADA,
      to: line,
      mediaUrls: [`${host.url}/small.png`],
    });
    host.server.close();
    assert.equal(received.status, 201, received.text);
    await page
      .getByRole('link', { name: /Ada Lovelace/ })
      .first()
      .click();
    await page
      .locator('.bubble-row.outbound', { hasText: 'Here is the quote' })
      .getByRole('link', { name: /quote\.pdf/ })
      .waitFor();
    await page
      .locator('.bubble-row.inbound')
      .getByRole('img', { name: /Picture .*from Ada Lovelace/ })
      .last()
      .waitFor();
  });

  test('the test/live switch shows the other world and comes back', async () => {
    await page.goto('/app/inbox');
    await page.getByRole('radio', { name: 'Live' }).first().check();
    await page.getByText('No conversations yet').waitFor();
    await page.getByText('Live updates on').waitFor();
    await page.getByRole('radio', { name: 'Test' }).first().check();
    await page
      .getByRole('link', { name: /Ada Lovelace/ })
      .first()
      .waitFor();
  });
});
