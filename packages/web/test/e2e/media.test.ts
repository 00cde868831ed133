// Pictures in the thread, in a real browser: a picture received into the media store shows as
// a thumbnail with alternative text, loaded from the service's signed link, and opens full
// size; an item the service did not keep says so and why. The composer's picker puts a
// picture into the store and sends its link.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { receiveMessage } from '../../../server/src/commands/receive-message.ts';
import { storeMedia } from '../../../server/src/commands/store-media.ts';
import { mediaLink } from '../../../server/src/http/media/media-links.ts';
import {
  assertAccessible,
  eventually,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
} from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const GRACE = '+14155550166';
/** Where a carrier would fetch sent pictures from; nothing needs to answer there in the sandbox. */
const PUBLIC_URL = 'https://sms.example.com';
/** A 2x2 PNG, as a handset might send. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR42mP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

describe('pictures in the thread', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;

  before(async () => {
    [s, browser] = await Promise.all([
      startSoftphone({ env: { SWITCHBOARD_PUBLIC_URL: PUBLIC_URL } }),
      launchBrowser(),
    ]);
    const clock = { now: () => Date.now() };
    const line = s.acct.testNumbers[0]!;
    const contact = await s.acct.test.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper' });
    assert.equal(contact.status, 201, contact.text);
    // What an inbound MMS leaves once its media went through the store (http/media/ingest-media.ts).
    const { ids } = await s.t.store.write((tx) =>
      storeMedia(
        tx,
        {
          accountId: s.acct.accountId,
          items: [{ contentType: 'image/png', data: PNG.toString('base64') }],
        },
        { clock },
      ),
    );
    await s.t.store.write((tx) =>
      receiveMessage(
        tx,
        {
          mode: 'test',
          from: GRACE,
          to: line,
          body: 'The moth',
          media: [
            {
              url: mediaLink(s.t.secrets, null, ids[0]!, Date.now() + 3_600_000),
              contentType: 'image/png',
              size: PNG.length,
            },
            {
              url: 'https://media.example.com/huge.mov',
              contentType: 'video/quicktime',
              size: null,
              kept: false,
              reason: 'Larger than 5 MB.',
            },
          ],
        },
        { clock },
      ),
    );
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.owner.email, s.owner.password);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  test('a received picture shows as a thumbnail with alternative text, loaded from its signed link', async () => {
    await page
      .getByRole('link', { name: /Grace Hopper/ })
      .first()
      .click();
    const picture = page.getByRole('img', { name: 'Picture from Grace Hopper' });
    await picture.waitFor();
    await eventually(
      async () =>
        picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 2),
      'the picture to load',
    );
    const notKept = page.locator('[data-kept="false"]');
    assert.match((await notKept.textContent()) ?? '', /huge\.mov not kept: Larger than 5 MB\./);
    await assertAccessible(page, 'thread with a picture');
    await screenshots(page, 'thread-picture');
  });

  test('tapping the thumbnail opens the picture full size', async () => {
    const [opened] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('link', { name: 'Picture from Grace Hopper' }).click(),
    ]);
    await opened.waitForLoadState();
    assert.match(opened.url(), /\/v1\/media\/med_[^?]+\?token=/);
    const size = await opened.evaluate(() => {
      const img = document.querySelector('img');
      return img ? img.naturalWidth : 0;
    });
    assert.equal(size, 2);
    await opened.close();
  });

  test('a picture chosen in the composer is previewed with alt text, stored, and sent as an MMS carrying its link', async () => {
    await page.getByRole('button', { name: 'Attach a picture' }).waitFor();
    await page
      .locator('input[type="file"]')
      .setInputFiles({ name: 'moth.png', mimeType: 'image/png', buffer: PNG });
    const preview = page.getByRole('img', { name: 'Picture to send: moth.png' });
    await preview.waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('Found it');
    await page.getByRole('button', { name: 'Send' }).click();
    const bubble = page.locator('.bubble-row.outbound', { hasText: 'Found it' });
    await bubble.waitFor();
    // The message may show (pushed) a moment before the composer hears its send was taken.
    await preview.waitFor({ state: 'detached' });
    const id = await bubble.getAttribute('data-message-id');
    const sent = (await s.acct.test.get(`/v1/messages/${id}`)).body as {
      media: { url: string; contentType: string; size?: number }[];
    };
    // What was stored, not a guess from a link that has no extension.
    assert.equal(sent.media[0]!.contentType, 'image/png');
    assert.equal(sent.media[0]!.size, PNG.length);
    const link = new URL(sent.media[0]!.url);
    assert.equal(link.origin, PUBLIC_URL);
    assert.match(link.pathname, /^\/v1\/media\/med_/);
    const stored = await fetch(`${s.t.url}${link.pathname}${link.search}`);
    assert.equal(stored.status, 200);
    assert.deepEqual(Buffer.from(await stored.arrayBuffer()), PNG);
  });
});
