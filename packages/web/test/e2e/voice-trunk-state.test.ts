// The dashboard's Carriers tab in a real browser lists SIP trunks with their state as Switchboard
// checks them with OPTIONS (sipp plays the trunks): one up, one refusing with its reason, and
// never a trunk's login.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addCarrier } from '../../../server/src/commands/add-carrier.ts';
import { startSippServer, type SippServer } from '../../../server/test/support/voice-trunk.ts';
import { eventually, launchBrowser, newContext, signIn } from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

const LOGIN = 'acme-trunk-login';

describe('the dashboard’s SIP trunks', () => {
  let s: Softphone;
  let browser: Browser;
  let page: Page;
  let good: SippServer;
  let refusing: SippServer;
  const ids: Record<'good' | 'refusing', string> = { good: '', refusing: '' };

  before(async () => {
    [s, browser, good, refusing] = await Promise.all([
      startSoftphone({ env: { SWITCHBOARD_TRUNK_CHECK_SECONDS: '1' } }),
      launchBrowser(),
      startSippServer('options-ok', { calls: 1000, timeoutMs: 60_000 }),
      startSippServer('options-refuse', { calls: 1000, timeoutMs: 60_000 }),
    ]);
    const clock = { now: () => Date.now() };
    const seal = (secret: string) => s.t.secrets.seal(secret);
    for (const [name, peer] of [
      ['good', good],
      ['refusing', refusing],
    ] as const) {
      const trunk = {
        type: 'sip',
        host: '127.0.0.1',
        port: peer.port,
        username: LOGIN,
        password: 'pw-9',
      };
      const made = await s.t.store.write((tx) =>
        addCarrier(tx, s.acct.accountId, trunk, { clock, seal }),
      );
      ids[name] = made.id;
    }
    page = await (await newContext(browser, s.t.url)).newPage();
    await signIn(page, s.owner.email, s.owner.password);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
    await Promise.all([good?.stop(), refusing?.stop()]);
  });

  const row = (id: string) => page.locator(`[data-carrier="${id}"]`);
  const status = (id: string) => row(id).locator('[data-status]').getAttribute('data-status');

  test('a trunk that answers OPTIONS shows up; one that refuses shows failed with the status', async () => {
    await page.goto('/app/dashboard/carriers');
    await row(ids.good).waitFor();
    await eventually(async () => (await status(ids.good)) === 'up', 'the good trunk to show up');
    await eventually(
      async () => (await status(ids.refusing)) === 'failed',
      'the refusing trunk to show failed',
    );
    assert.match((await row(ids.refusing).textContent()) ?? '', /refused OPTIONS: 403 Forbidden/);
    assert.match((await row(ids.good).textContent()) ?? '', /SIP trunk · udp · digest login/);
    assert.ok(!(await page.content()).includes(LOGIN), 'the login is never shown');
  });

  test('a paused trunk shows paused, and its checked state again once resumed', async () => {
    await row(ids.refusing).getByRole('button', { name: 'Pause' }).click();
    await eventually(async () => (await status(ids.refusing)) === 'paused', 'paused');
    await row(ids.refusing).getByRole('button', { name: 'Resume' }).click();
    await eventually(async () => (await status(ids.refusing)) === 'failed', 'asked again');
  });

  test('an owner adds a SIP trunk in the Carriers tab: a lone username is refused, then it is stored with its login sealed and checked', async () => {
    const stored = () =>
      s.t.store.db
        .selectFrom('carrier_connections')
        .selectAll()
        .where('account_id', '=', s.acct.accountId)
        .execute();
    const before = new Set((await stored()).map((c) => c.id));
    await page.goto('/app/dashboard/carriers');
    const form = page.getByRole('form', { name: 'Add a SIP trunk' });
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByLabel('Port', { exact: true }).fill(String(good.port));
    await form.getByLabel('Transport').selectOption('udp');
    await form.getByLabel('Username').fill('added-login');
    await form.getByRole('button', { name: 'Add SIP trunk' }).click();
    await form.getByRole('alert').getByText('username and password go together').waitFor();
    assert.equal((await stored()).length, before.size, 'nothing stored');

    await form.getByLabel('Password').fill('pw-added-7');
    await form.getByRole('button', { name: 'Add SIP trunk' }).click();
    let added: Awaited<ReturnType<typeof stored>>[number] | undefined;
    await eventually(async () => {
      added = (await stored()).find((c) => !before.has(c.id));
      return added !== undefined;
    }, 'the trunk to be stored');
    assert.equal(added!.type, 'sip');
    assert.deepEqual(JSON.parse(added!.settings_json), {
      host: '127.0.0.1',
      port: good.port,
      transport: 'udp',
      authenticated: true,
    });
    assert.ok(!added!.secret_sealed.includes('pw-added-7'), 'the password is sealed');
    assert.deepEqual(JSON.parse(s.t.secrets.open(added!.secret_sealed)), {
      username: 'added-login',
      password: 'pw-added-7',
    });
    await eventually(async () => (await status(added!.id)) === 'up', 'the new trunk to show up');
    assert.match((await row(added!.id).textContent()) ?? '', /SIP trunk · udp · digest login/);
    assert.equal(await form.getByLabel('Host').inputValue(), '', 'the form is cleared');
    const html = await page.content();
    assert.ok(
      !html.includes('added-login') && !html.includes('pw-added-7'),
      'the login never shown',
    );
  });
  test('a TLS trunk added without a port gets SIP over TLS’s, 5061, as the form’s hint says', async () => {
    const before = await s.t.store.db
      .selectFrom('carrier_connections')
      .select('id')
      .where('account_id', '=', s.acct.accountId)
      .execute();
    await page.goto('/app/dashboard/carriers');
    const form = page.getByRole('form', { name: 'Add a SIP trunk' });
    await form.getByLabel('Host').fill('sip.example.test');
    await form.getByLabel('Transport').selectOption('tls');
    const port = form.getByLabel('Port', { exact: true });
    assert.equal(await port.getAttribute('placeholder'), '5061');
    assert.equal(await port.inputValue(), '');
    await form.getByRole('button', { name: 'Add SIP trunk' }).click();
    let settings: { port?: number; transport?: string } | undefined;
    await eventually(async () => {
      const rows = await s.t.store.db
        .selectFrom('carrier_connections')
        .selectAll()
        .where('account_id', '=', s.acct.accountId)
        .execute();
      const added = rows.find((c) => !before.some((b) => b.id === c.id));
      settings = added && JSON.parse(added.settings_json);
      return settings !== undefined;
    }, 'the TLS trunk to be stored');
    assert.equal(settings!.transport, 'tls');
    assert.equal(settings!.port, 5061);
  });
});
