// An owner manages the team from the dashboard; the teammate's open tab follows at once.
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
import { createLogin, startSoftphone, type Softphone } from '../support/softphone.ts';

const SIGN_IN_HEADING = 'Sign in to your team’s inbox';

describe('team administration in the softphone', () => {
  let s: Softphone;
  let browser: Browser;
  let owner: Page;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
    owner = await (await newContext(browser, s.t.url)).newPage();
    await signIn(owner, s.owner.email, s.owner.password);
    await owner.goto('/app/dashboard');
    await owner.getByRole('link', { name: 'Team' }).click();
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  /** A teammate signed in on their own device, watching the inbox live. */
  async function teammateTab(
    name: string,
  ): Promise<{ page: Page; login: { id: string; email: string; password: string } }> {
    const login = await createLogin(s.t, s.acct.accountId, 'member', name);
    const page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, login.email, login.password);
    await page.getByText('Live updates on').waitFor();
    await owner.reload();
    await owner.getByRole('list', { name: 'Team members' }).getByText(name).waitFor();
    return { page, login };
  }

  const row = (name: string) =>
    owner
      .getByRole('list', { name: 'Team members' })
      .getByRole('listitem')
      .filter({ hasText: name });

  test('a removed teammate’s open tab is signed out within a second', async () => {
    const { page } = await teammateTab('Rita Removed');
    owner.once('dialog', (dialog) => void dialog.accept());
    await row('Rita Removed').getByRole('button', { name: 'Remove' }).click();
    const start = Date.now();
    await page.getByRole('heading', { name: SIGN_IN_HEADING }).waitFor({ timeout: 1_000 });
    assert.ok(Date.now() - start < 1_000);
    await row('Rita Removed').waitFor({ state: 'detached' });
    await page.context().close();
  });

  test('a disabled teammate is signed out at once and told so on signing in; enabling lets them back', async () => {
    const { page, login } = await teammateTab('Dana Disabled');
    await row('Dana Disabled').getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('heading', { name: SIGN_IN_HEADING }).waitFor({ timeout: 1_000 });
    await row('Dana Disabled').getByText('disabled', { exact: true }).waitFor();
    await page.getByLabel('Work email').fill(login.email);
    await page.getByLabel('Password').fill(login.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/This login is disabled/).waitFor();
    await row('Dana Disabled').getByRole('button', { name: 'Enable' }).click();
    await row('Dana Disabled').getByRole('button', { name: 'Disable' }).waitFor();
    await signIn(page, login.email, login.password);
    await page.context().close();
  });

  test('an owner changes a role and resets a password', async () => {
    const { page, login } = await teammateTab('Pat Promoted');
    await row('Pat Promoted').getByLabel('Role of Pat Promoted').selectOption('owner');
    await owner.getByRole('status').getByText('Pat Promoted is now owner.').waitFor();
    await page.reload();
    await page.getByRole('link', { name: 'Dashboard' }).waitFor();
    await row('Pat Promoted').getByRole('button', { name: 'Reset password' }).click();
    await row('Pat Promoted').getByLabel('New password for Pat Promoted').fill('a new password');
    await row('Pat Promoted').getByRole('button', { name: 'Set password', exact: true }).click();
    await page.getByRole('heading', { name: SIGN_IN_HEADING }).waitFor({ timeout: 1_000 });
    await signIn(page, login.email, 'a new password');
    await assertAccessible(owner, 'dashboard: team with its controls');
    await screenshots(owner, 'team-admin');
    await page.context().close();
  });
});
