// Renders docs/images/softphone-inbox.png, the inbox the README shows: a real server with a few
// realistic conversations, photographed at desktop size. Run after `npm run build`:
//   node packages/web/test/tools/readme-screenshot.ts
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBrowser, newContext, signIn, VIEWPORTS } from '../support/browser.ts';
import { createLogin, startSoftphone } from '../support/softphone.ts';

const OUT = fileURLToPath(new URL('../../../../docs/images/softphone-inbox.png', import.meta.url));

const MARIA = '+14155550181';
const JAMES = '+14155550182';
const PRIYA = '+14155550183';
const TOM = '+14155550184';
const SOFIA = '+14155550185';
const STRANGER = '+16505550186';

const s = await startSoftphone();
const browser = await launchBrowser();
try {
  const api = s.acct.test;
  const line = s.acct.testNumbers[0]!;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const ok = async (res: Promise<{ status: number; text: string }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(r.text);
  };
  for (const [phone, name, company] of [
    [MARIA, 'Maria Garcia', null],
    [JAMES, 'James Chen', 'Chen Bakery'],
    [PRIYA, 'Priya Patel', 'Acme Plumbing'],
    [TOM, 'Tom Becker', 'Becker Realty'],
    [SOFIA, 'Sofia Rossi', null],
  ] as const) {
    await ok(api.post('/v1/contacts', { phone, name, ...(company ? { company } : {}) }));
  }
  const inbound = (from: string, body: string, extra: Record<string, unknown> = {}) =>
    ok(api.post('/v1/sandbox/inbound', { from, to: line, body, ...extra }));
  const send = (to: string | string[], body: string, senderName?: string) =>
    ok(api.post('/v1/messages', { from: line, to, body, ...(senderName ? { senderName } : {}) }));

  await send(
    SOFIA,
    'Hi Sofia, your invoice #1042 is ready: https://pay.example.com/1042',
    'Billing bot',
  );
  await send(
    [PRIYA, TOM, '+14155550187'],
    'Crew: the Becker job moves to 8am tomorrow. Parking is round the back.',
    'Olivia Bennett',
  );
  await inbound(TOM, 'Got it, I’ll bring the long ladder.');
  await inbound(JAMES, 'This is the valve I mentioned, it drips all night');
  await send(
    JAMES,
    'Thanks James, that’s a worn cartridge. We can swap it Friday morning.',
    'Olivia Bennett',
  );
  await inbound(MARIA, 'Hi! Is someone available to look at a leaking water heater this week?');
  await pause(300);
  await send(
    MARIA,
    'Hi Maria, we can come Thursday between 9 and 11am. Does that work for you?',
    'Olivia Bennett',
  );
  await pause(300);
  await inbound(MARIA, 'Thursday works, thank you!');
  await pause(300);
  await send(MARIA, 'Booked: Thursday 9–11am with Priya. Reply C to cancel.', 'Scheduler');
  await inbound(STRANGER, 'Do you do emergency call-outs on weekends?');
  await ok(api.post('/v1/sandbox/calls', { from: TOM, to: line, outcome: 'missed' }));
  await pause(800);

  const owner = await createLogin(s.t, s.acct.accountId, 'owner', 'Olivia Bennett');
  const page = await (await newContext(browser, s.t.url)).newPage();
  await page.setViewportSize(VIEWPORTS.desktop);
  await signIn(page, owner.email, owner.password);
  await page.getByRole('link', { name: /Maria Garcia/ }).click();
  await page
    .locator('.bubble-row', { hasText: 'Booked: Thursday' })
    .locator('[data-status="delivered"]')
    .waitFor();
  // Focus away from the composer so no caret or focus ring shows in the picture.
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await pause(200);
  await page.getByRole('textbox', { name: 'Message' }).evaluate((el) => el.blur());
  await page.mouse.move(0, 0);
  mkdirSync(fileURLToPath(new URL('.', `file://${OUT}`)), { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await s.t.close();
}
