// The owners' dashboard in a real browser: API keys end to end (created, used, revoked, 401),
// webhook endpoints with their delivery log, the team, the HELP reply and the opt-out list.
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
import { startReceiver, type WebhookReceiver } from '../support/receiver.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

describe('the owners’ dashboard', () => {
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
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.owner.email, s.owner.password);
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await s?.t.close();
  });

  function withKey(key: string) {
    return fetch(`${s.t.url}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550150', name: 'Key check' }),
    });
  }

  test('create a key (secret shown once), use it, revoke it: the API answers 401', async () => {
    await page.goto('/app/dashboard');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('heading', { name: 'Rotating a key' }).waitFor();
    await page.getByRole('button', { name: 'Create test key' }).click();
    const secretField = page.getByRole('textbox', { name: 'Your new API key' });
    const secret = await secretField.inputValue();
    assert.match(secret, /^sk_test_[0-9A-Za-z]{32,}$/);
    await assertAccessible(page, 'dashboard: API keys');
    await screenshots(page, 'dashboard-keys');
    await page.getByRole('button', { name: 'I’ve saved it' }).click();
    assert.equal(await secretField.count(), 0);

    assert.equal((await withKey(secret)).status, 201, 'the new key works');
    const hint = `sk_test_…${secret.slice(-4)}`;
    const row = page.locator('tr', { hasText: hint });
    // Shown once: after a reload only its last four characters remain.
    await eventually(async () => {
      await page.reload();
      await row.waitFor();
      return !(await row.textContent())?.includes('Never');
    }, 'the key list to show its last use');
    assert.equal(await page.locator(`text=${secret}`).count(), 0);

    await row.getByRole('button', { name: `Revoke ${hint}` }).click();
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await row.getByText(/^Revoked/).waitFor();
    const refused = await withKey(secret);
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).error.type, 'unauthorized');
    // The account's other key is untouched.
    assert.equal((await withKey(s.acct.testKey)).status, 201);
  });

  test('webhooks: add, deliver, read the log, redeliver, edit, disable, rotate', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel(/Description/).fill('Order system');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByRole('textbox', { name: /Signing secret for/ }).inputValue();
    assert.match(secret, /^whsec_/);
    await page.getByRole('button', { name: 'I’ve saved it' }).click();
    const endpoint = page.locator('.endpoint', { hasText: receiver.url });
    await endpoint.getByText('Order system').waitFor();

    // A failing receiver first: the log shows the failed attempt and its status code.
    receiver.status = 500;
    const inbound = await s.acct.test.post('/v1/sandbox/inbound', {
      from: '+14155550151',
      to: line,
      body: 'Order #1042?',
    });
    assert.equal(inbound.status, 201);
    const first = await eventually(
      async () => receiver.deliveries.find((d) => d.body.data.id === inbound.body.id),
      'a delivery',
    );
    await endpoint.getByRole('button', { name: 'Delivery log' }).click();
    const delivery = endpoint.locator('.delivery', { hasText: 'message.received' });
    await eventually(async () => {
      await endpoint.getByRole('button', { name: 'Refresh' }).click();
      return (await delivery.getByText('HTTP 500').count()) > 0;
    }, 'the failed attempt in the log');
    await delivery.getByText('Retrying').waitFor();

    // Redeliver now that the receiver is fixed: same event id, a second attempt, succeeded.
    receiver.status = 200;
    await delivery.getByRole('button', { name: /^Redeliver/ }).click();
    await eventually(
      async () => receiver.deliveries.filter((d) => d.body.id === first.body.id).length >= 2,
      'the redelivery',
    );
    await eventually(async () => {
      await endpoint.getByRole('button', { name: 'Refresh' }).click();
      return (await delivery.getByText('HTTP 200').count()) > 0;
    }, 'the successful attempt in the log');
    assert.ok((await delivery.locator('.attempts tbody tr').count()) >= 2);
    await assertAccessible(page, 'dashboard: webhooks');
    await screenshots(page, 'dashboard-webhooks');

    // Edit: subscribe to calls as well.
    await endpoint.getByRole('button', { name: 'Edit' }).click();
    await endpoint.getByRole('checkbox', { name: 'call.missed' }).check();
    await endpoint.getByRole('button', { name: 'Save endpoint' }).click();
    await endpoint.locator('.endpoint-events').getByText('call.missed').waitFor();

    // Disable: nothing is delivered; enable again.
    await endpoint.getByRole('button', { name: 'Disable' }).click();
    await endpoint.getByText('Disabled by a teammate', { exact: true }).waitFor();
    const count = receiver.deliveries.length;
    await s.acct.test.post('/v1/sandbox/calls', {
      from: '+14155550151',
      to: line,
      outcome: 'missed',
    });
    await page.waitForTimeout(500);
    assert.equal(receiver.deliveries.length, count);
    await endpoint.getByRole('button', { name: 'Enable' }).click();
    await endpoint.getByText('Enabled').waitFor();

    // Rotate: a new secret, and deliveries during the overlap are signed with both.
    await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await page.getByRole('textbox', { name: /New signing secret/ }).inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByRole('button', { name: 'I’ve saved it' }).click();
    const next = await s.acct.test.post('/v1/sandbox/inbound', {
      from: '+14155550151',
      to: line,
      body: 'Still there?',
    });
    const signed = await eventually(
      async () => receiver.deliveries.find((d) => d.body.data.id === next.body.id),
      'a delivery after rotation',
    );
    assert.equal(String(signed.headers['x-service-signature']).match(/v1=/g)?.length, 2);
  });

  test('team: invite a member, who can then sign in', async () => {
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('list', { name: 'Team members' }).getByText(s.owner.name).waitFor();
    const email = `new.hire.${Date.now()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Nina Newhire');
    await page.getByLabel('First password').fill('short');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('alert')
      .getByText(/at least 8/)
      .waitFor();
    await page.getByLabel('First password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('status')
      .getByText(/Nina Newhire can now sign in/)
      .waitFor();
    await page.getByRole('list', { name: 'Team members' }).getByText('Nina Newhire').waitFor();
    await assertAccessible(page, 'dashboard: team');

    const newcomer = await (await newContext(browser, s.t.url)).newPage();
    await signIn(newcomer, email, 'correct horse battery');
    await newcomer.getByRole('heading', { name: /^Inbox/ }).waitFor();
    assert.equal(await newcomer.getByRole('link', { name: 'Dashboard' }).count(), 0);
    await newcomer.context().close();
  });

  test('the HELP reply is what a customer gets back; STOP puts them on the opt-out list', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const reply = 'Acme Plumbing: call (415) 555-0100, 8am-6pm. Reply STOP to opt out.';
    await page.getByLabel('Reply text').fill(reply);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('HELP reply saved.').waitFor();
    await assertAccessible(page, 'dashboard: settings');

    // Outside the sandbox range (555-0100 to 0199), so it can never be one of the account's lines.
    const customer = '+14155550052';
    await s.acct.test.post('/v1/sandbox/inbound', { from: customer, to: line, body: 'HELP' });
    await s.acct.test.post('/v1/sandbox/inbound', { from: customer, to: line, body: 'STOP' });
    const help = await s.t.store.db
      .selectFrom('messages')
      .select('body')
      .where('account_id', '=', s.acct.accountId)
      .where('direction', '=', 'outbound')
      .where('body', '=', reply)
      .execute();
    assert.equal(help.length, 1);

    await page.getByRole('link', { name: 'Numbers & opt-outs' }).click();
    await page
      .getByRole('list', { name: 'Opted-out numbers' })
      .getByText('(415) 555-0052')
      .waitFor();
    const numbers = page.getByRole('list', { name: 'Numbers', exact: true });
    for (const n of s.acct.testNumbers) {
      await numbers.getByText(`(${n.slice(2, 5)}) ${n.slice(5, 8)}-${n.slice(8)}`).waitFor();
    }
    await assertAccessible(page, 'dashboard: numbers');
  });
});
