// The softphone as an installable web app: its manifest and icons, a service worker that
// starts the app offline, and `npm start`'s server answering for every /app path.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { eventually, launchBrowser, newContext, signIn } from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe('installable web app', () => {
  let s: Softphone;
  let browser: Browser;

  before(async () => {
    [s, browser] = await Promise.all([startSoftphone(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
  });

  test('the manifest describes a standalone app scoped to /app/ with real icons', async () => {
    const response = await fetch(`${s.t.url}/app/manifest.webmanifest`);
    assert.equal(response.status, 200);
    const manifest = await response.json();
    assert.equal(manifest.name, 'Switchboard');
    assert.equal(manifest.start_url, '/app/');
    assert.equal(manifest.scope, '/app/');
    assert.equal(manifest.display, 'standalone');
    assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/i);
    assert.deepEqual(manifest.protocol_handlers, [
      { protocol: 'web+switchboard', url: '/app/link?uri=%s' },
    ]);
    for (const icon of manifest.icons.filter((i: { type: string }) => i.type === 'image/png')) {
      const png = await fetch(`${s.t.url}${icon.src}`);
      assert.equal(png.status, 200, icon.src);
      assert.equal(png.headers.get('content-type'), 'image/png');
      const { width, height } = pngSize(new Uint8Array(await png.arrayBuffer()));
      assert.equal(`${width}x${height}`, icon.sizes, icon.src);
    }
    const html = await (await fetch(`${s.t.url}/app/calls`)).text();
    assert.match(html, /<link rel="manifest" href="\/app\/manifest\.webmanifest"/);
    assert.match(html, /<meta name="theme-color"/);
  });

  test('the service worker starts the app offline and never caches the API', async () => {
    const context = await newContext(browser, s.t.url);
    const page = await context.newPage();
    await signIn(page, s.member.email, s.member.password);
    const registration = await page.evaluate(async () => {
      const ready = await navigator.serviceWorker.ready;
      return { script: ready.active?.scriptURL ?? '', scope: ready.scope };
    });
    assert.equal(registration.script, `${s.t.url}/app/sw.js`);
    assert.equal(registration.scope, `${s.t.url}/app/`);
    await eventually(
      () =>
        page.evaluate(
          async () =>
            (await caches.keys()).length > 0 && navigator.serviceWorker.controller !== null,
        ),
      'the worker to take control with a filled cache',
    );

    await context.setOffline(true);
    await page.reload();
    // Signed in on this device before, it opens on the device's copy and says so.
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByText('Offline: no network').first().waitFor();
    // Back online, a tab that started offline goes live by itself.
    await context.setOffline(false);
    await page.getByText('Live updates on').first().waitFor({ timeout: 5_000 });
    // The address the server prints, /app, moves to /app/, where the worker answers offline.
    await page.goto('/app?from=banner');
    assert.equal(new URL(page.url()).pathname, '/app/');
    assert.equal(new URL(page.url()).search, '?from=banner');

    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) {
        for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
      }
      return urls;
    });
    assert.ok(
      cached.some((url) => url.endsWith('/app/')),
      'the shell is cached',
    );
    assert.ok(
      cached.some((url) => /\/app\/assets\/.+\.js$/.test(url)),
      'the script is cached',
    );
    assert.deepEqual(
      cached.filter((url) => url.includes('/app/api') || url.includes('/app/ws')),
      [],
    );
    await context.close();
  });

  test('every /app path serves the app; unknown /app/api paths stay JSON', async () => {
    const page = await (await newContext(browser, s.t.url)).newPage();
    await page.goto('/app/some/deep/path');
    await page.getByRole('heading', { name: 'Sign in to your team’s inbox' }).waitFor();
    const api = await fetch(`${s.t.url}/app/api/nope`);
    assert.equal(api.status, 404);
    assert.equal((await api.json()).error.type, 'not_found');
    await page.context().close();
  });
});
