// Signing in, what each role sees, and the walls around a session: CSRF, other origins and
// other accounts, checked in a real browser against the real server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import {
  assertAccessible,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
} from '../support/browser.ts';
import { createLogin, startSoftphone, type Softphone } from '../support/softphone.ts';

describe('softphone sessions', () => {
  let s: Softphone;
  let browser: Browser;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  async function freshPage(): Promise<Page> {
    const context = await newContext(browser, s.t.url);
    return context.newPage();
  }

  /** The page's session cookie and CSRF token, as the app itself holds them. */
  async function credentials(page: Page): Promise<{ cookie: string; csrf: string }> {
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'sb_session');
    assert.ok(session, 'the sign-in set the sb_session cookie');
    assert.equal(session.httpOnly, true);
    const me = await page.evaluate(() => fetch('/app/api/me').then((r) => r.json()));
    return { cookie: `sb_session=${session.value}`, csrf: me.csrfToken };
  }

  test('the sign-in page is accessible and a wrong password is refused with a message', async () => {
    const page = await freshPage();
    await page.goto('/app/');
    await page.getByRole('heading', { name: 'Sign in to your team’s inbox' }).waitFor();
    await assertAccessible(page, 'sign-in page');
    await screenshots(page, 'sign-in');

    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Enter your work email and your password.' })
      .waitFor();
    await page.getByLabel('Work email').fill(s.member.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'don’t match' }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0);
    await page.context().close();
  });

  test('a member signs in with the keyboard alone and gets the inbox, not the dashboard', async () => {
    const page = await freshPage();
    await page.goto('/app/');
    await page.getByLabel('Work email').waitFor();
    // The email field has focus on arrival; everything else is Tab and Enter.
    await page.keyboard.type(s.member.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(s.member.password);
    await page.keyboard.press('Enter');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.waitFor();
    await page.getByRole('heading', { name: /^Inbox/ }).waitFor();
    for (const name of ['Inbox', 'Calls', 'Contacts']) {
      assert.equal(await nav.getByRole('link', { name }).count(), 1, `${name} in the rail`);
    }
    assert.equal(await nav.getByRole('link', { name: 'Dashboard' }).count(), 0);

    await page.goto('/app/dashboard');
    await page.getByRole('heading', { name: 'Nothing here' }).waitFor();
    const keys = await page.request.get('/app/api/keys');
    assert.equal(keys.status(), 404, 'members get 404 from owner-only endpoints');

    // The skip link is the first stop of the keyboard and lands on the content.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent);
    assert.equal(focused, 'Skip to content');
    await page.context().close();
  });

  test('an owner signs in and has the dashboard', async () => {
    const page = await freshPage();
    await signIn(page, s.owner.email, s.owner.password);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.context().close();
  });

  test('changes without the CSRF token, or from another origin, are refused', async () => {
    const page = await freshPage();
    await signIn(page, s.member.email, s.member.password);
    const { cookie, csrf } = await credentials(page);
    const body = JSON.stringify({ phone: '+14155550199', name: 'Forged' });

    // Same origin and the cookie, but no token: what a form on another site could send.
    const noToken = await page.evaluate(
      (payload) =>
        fetch('/app/api/contacts', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: payload,
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      body,
    );
    assert.equal(noToken.status, 401);
    assert.equal(noToken.body.error.type, 'unauthorized');

    // The right token and cookie, but sent from another origin.
    const crossSite = await fetch(`${s.t.url}/app/api/contacts`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie,
        'x-csrf-token': csrf,
        origin: 'https://evil.example',
      },
      body,
    });
    assert.equal(crossSite.status, 401);

    // A socket opened from another origin is refused before it is upgraded.
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${s.t.url.replace('http', 'ws')}/app/ws?mode=test`, {
        headers: { cookie, origin: 'https://evil.example' },
      });
      ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      ws.on('open', () => reject(new Error('cross-origin socket was accepted')));
      ws.on('error', () => undefined);
    });
    assert.equal(status, 403);

    // With the token, from the app itself, the same change goes through.
    const ok = await page.evaluate(
      ({ payload, token }) =>
        fetch('/app/api/contacts', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': token },
          body: payload,
        }).then((r) => r.status),
      { payload: JSON.stringify({ phone: '+14155550198', name: 'Genuine' }), token: csrf },
    );
    assert.equal(ok, 201);
    const names = (
      await page.evaluate(() => fetch('/app/api/contacts').then((r) => r.json()))
    ).data.map((c: { name: string }) => c.name);
    assert.ok(names.includes('Genuine'));
    assert.ok(!names.includes('Forged'), 'no forged contact was created');
    await page.context().close();
  });

  test('a user of another account sees none of this account, live or by id', async () => {
    const other = await s.t.newAccount('Other Co');
    const stranger = await createLogin(s.t, other.accountId, 'owner', 'Sam Stranger');
    const ours = s.acct.testNumbers[0]!;
    const sent = await s.acct.test.post('/v1/messages', {
      from: ours,
      to: '+14155550142',
      body: 'Private to Acme',
    });
    assert.equal(sent.status, 201, sent.text);

    const page = await freshPage();
    await signIn(page, stranger.email, stranger.password);
    await page.getByText('No conversations yet').waitFor();

    const byId = await page.request.get(`/app/api/conversations/${sent.body.conversationId}`);
    assert.equal(byId.status(), 404);
    await page.goto(`/app/inbox/${sent.body.conversationId}`);
    await page.getByRole('heading', { name: 'Conversation not found' }).waitFor();

    // Pushes go to the account they concern only.
    await page.goto('/app/inbox');
    await page.getByText('Live updates on').waitFor();
    await s.acct.test.post('/v1/messages', {
      from: ours,
      to: '+14155550143',
      body: 'Also private',
    });
    await page.waitForTimeout(600);
    assert.equal(await page.getByText('Also private').count(), 0);
    assert.equal(await page.getByText('Private to Acme').count(), 0);
    await page.context().close();
  });

  test('signing out ends the session on the server', async () => {
    const page = await freshPage();
    await signIn(page, s.member.email, s.member.password);
    await page.getByRole('button', { name: `Sign out ${s.member.name}` }).click();
    await page.getByRole('heading', { name: 'Sign in to your team’s inbox' }).waitFor();
    const me = await page.request.get('/app/api/me');
    assert.equal(me.status(), 401);
    assert.equal(
      await page.getByText('Your session has ended').count(),
      0,
      'signing out oneself needs no explanation',
    );
    await page.context().close();
  });

  test('signed out in another tab, a tab stops receiving at once and says the session ended', async () => {
    const context = await newContext(browser, s.t.url);
    const [watching, other] = [await context.newPage(), await context.newPage()];
    await signIn(watching, s.member.email, s.member.password);
    await watching.getByText('Live updates on').waitFor();
    await other.goto('/app/');
    await other.getByRole('button', { name: `Sign out ${s.member.name}` }).click();
    await other.getByRole('heading', { name: 'Sign in to your team’s inbox' }).waitFor();
    // The watching tab made no request since: the server closed its channel.
    await watching
      .getByRole('status')
      .filter({ hasText: 'Your session has ended. Sign in again to continue.' })
      .waitFor({ timeout: 5_000 });
    await watching.getByRole('heading', { name: 'Sign in to your team’s inbox' }).waitFor();
    await context.close();
  });
});
