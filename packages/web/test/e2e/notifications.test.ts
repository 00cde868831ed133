// Notifications in Chromium: the unread count in the title and the app badge, the Notification
// API while a tab is open (mentions and assignments reaching the other teammate), and Web Push
// through the service worker with no tab open, a click opening the thread.
//
// Chromium cannot register with its own push service here (no network): the test stands in
// for it. The page's PushManager hands out a subscription whose endpoint is the test's push
// service, keyed by the test; the server reaches it with web-push over the real protocol
// (encrypted, VAPID-signed); the push service decrypts it as Chromium would and delivers it to
// the real service worker through DevTools (ServiceWorker.deliverPushMessage).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startPushService, type PushService } from '../../../server/test/support/push-service.ts';
import {
  assertAccessible,
  launchBrowser,
  newContext,
  screenshots,
  signIn,
} from '../support/browser.ts';
import { startSoftphone, type Softphone } from '../support/softphone.ts';

/** The part of a service worker's global scope the test reaches into. */
interface WorkerScope {
  registration: ServiceWorkerRegistration;
}

/** Records what the page does with notifications and the badge, passing each call on. */
function recordNotifications() {
  const w = window as unknown as { shown: { title: string; body: string }[]; badges: number[] };
  w.shown = [];
  w.badges = [];
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      w.shown.push({ title, body: options?.body ?? '' });
      (w as unknown as { last: Notification }).last = this;
    }
  }
  window.Notification = Recorded as typeof Notification;
  const set = navigator.setAppBadge?.bind(navigator);
  const clear = navigator.clearAppBadge?.bind(navigator);
  navigator.setAppBadge = (n?: number) => {
    w.badges.push(n ?? 0);
    return set ? set(n).catch(() => undefined) : Promise.resolve();
  };
  navigator.clearAppBadge = () => {
    w.badges.push(0);
    return clear ? clear().catch(() => undefined) : Promise.resolve();
  };
}

describe('notifications in the softphone', () => {
  let s: Softphone;
  let push: PushService;
  let browser: Browser;
  let phoneCounter = 0;

  before(async () => {
    push = await startPushService();
    [s, browser] = await Promise.all([startSoftphone({ pushCa: push.ca }), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await s?.t.close();
    await push?.close();
  });

  async function inbound(body: string) {
    const from = `+1415555${String(8000 + ++phoneCounter)}`;
    const res = await s.acct.test.post('/v1/sandbox/inbound', {
      to: s.acct.testNumbers[0],
      from,
      body,
    });
    assert.equal(res.status, 201, res.text);
    return (res.body as { conversationId: string }).conversationId;
  }

  async function signedIn(email: string, password: string): Promise<[BrowserContext, Page]> {
    const context = await newContext(browser, s.t.url);
    await context.grantPermissions(['notifications'], { origin: s.t.url });
    await context.addInitScript(recordNotifications);
    const page = await context.newPage();
    await signIn(page, email, password);
    // A text that arrives before the live channel is open notifies nobody: it is in the list.
    await page.getByText('Live updates on').first().waitFor();
    return [context, page];
  }

  const shown = (page: Page) =>
    page.evaluate(() => (window as unknown as { shown: { title: string }[] }).shown);

  test('the unread count is in the title and on the app badge, and clears once read', async () => {
    const [context, page] = await signedIn(s.owner.email, s.owner.password);
    const id = await inbound('Are you open on Saturday?');
    await page.waitForFunction(() => /^\(1\) /.test(document.title));
    const badges = await page.evaluate(() => (window as unknown as { badges: number[] }).badges);
    assert.equal(badges.at(-1), 1);
    await page.goto(`/app/inbox/${id}`);
    await page.waitForFunction(() => !/^\(\d+\) /.test(document.title));
    await page.waitForFunction(
      () => (window as unknown as { badges: number[] }).badges.at(-1) === 0,
    );
    await context.close();
  });

  test('an open tab notifies a new text in another thread, and the click opens that thread', async () => {
    const [context, page] = await signedIn(s.owner.email, s.owner.password);
    const id = await inbound('Can you come tomorrow?');
    await page.waitForFunction(() => (window as unknown as { shown: unknown[] }).shown.length > 0);
    assert.match((await shown(page)).at(-1)!.title, /^\(415\) 555-8\d{3}$/);
    assert.match(JSON.stringify(await shown(page)), /Can you come tomorrow\?/);
    await page.evaluate(() => {
      const last = (window as unknown as { last: Notification }).last;
      last.onclick?.(new Event('click'));
    });
    await page.waitForURL(new RegExp(`/app/inbox/${id}$`));
    await context.close();
  });

  test('"only mine" silences other texts; an assignment and a mention notify the teammate', async () => {
    const [oliviaContext, olivia] = await signedIn(s.owner.email, s.owner.password);
    const [maxContext, max] = await signedIn(s.member.email, s.member.password);
    await max.getByText('Notifications', { exact: true }).click();
    await max.getByLabel('Only mine (assigned to me)').check();
    await max.waitForTimeout(200);
    await inbound('Nobody has this yet');
    await olivia.waitForFunction(
      () => (window as unknown as { shown: unknown[] }).shown.length > 0,
    );
    assert.equal((await shown(max)).length, 0, 'not assigned to Max: no notification');
    const id = await inbound('Please call back');
    await olivia.goto(`/app/inbox/${id}`);
    await olivia.getByLabel('Assignee').selectOption({ label: 'Max Member' });
    await max.waitForFunction(() =>
      (window as unknown as { shown: { title: string }[] }).shown.some(
        (n) => n.title === 'Olivia Owner assigned you a conversation',
      ),
    );
    await olivia
      .getByRole('group', { name: 'Write' })
      .getByRole('button', { name: 'Internal note' })
      .click();
    await olivia.getByLabel('Internal note', { exact: true }).fill('@Max the customer is waiting');
    await olivia.getByRole('button', { name: 'Add note' }).click();
    await max.waitForFunction(() =>
      (window as unknown as { shown: { title: string }[] }).shown.some(
        (n) => n.title === 'Olivia Owner mentioned you',
      ),
    );
    await assertAccessible(max, 'the inbox with notification settings open');
    await max.goto('/app/inbox');
    await max.getByText('Notifications', { exact: true }).click();
    await screenshots(max, 'inbox-notification-settings');
    await max.getByLabel('All new texts').check();
    await oliviaContext.close();
    await maxContext.close();
  });

  test('with push on and no tab open, a text shows a notification whose click opens the thread', async () => {
    const subscriber = push.subscriber();
    const context = await newContext(browser, s.t.url);
    await context.grantPermissions(['notifications'], { origin: s.t.url });
    // The stand-in for Chromium's push service registration (see the top of this file).
    await context.addInitScript((subscription) => {
      const made = () => localStorage.getItem('test.push') === '1';
      const handle = {
        endpoint: subscription.endpoint,
        expirationTime: null,
        toJSON: () => ({ ...subscription, expirationTime: null }),
        unsubscribe: async () => (localStorage.removeItem('test.push'), true),
      };
      PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
        localStorage.setItem('test.push', '1');
        localStorage.setItem('test.pushKey', String(options?.applicationServerKey));
        localStorage.setItem('test.visibleOnly', String(options?.userVisibleOnly));
        return handle as unknown as PushSubscription;
      };
      PushManager.prototype.getSubscription = async function () {
        return made() ? (handle as unknown as PushSubscription) : null;
      };
    }, subscriber.subscription);
    const page = await context.newPage();
    await signIn(page, s.owner.email, s.owner.password);
    await page.getByText('Notifications', { exact: true }).click();
    await page.getByRole('button', { name: 'Turn on push on this device' }).click();
    await page.getByRole('button', { name: 'Turn off push on this device' }).waitFor();
    const { publicKey } = await page.evaluate(() =>
      fetch('/app/api/push/key').then((r) => r.json()),
    );
    assert.equal(await page.evaluate(() => localStorage.getItem('test.pushKey')), publicKey);
    assert.equal(await page.evaluate(() => localStorage.getItem('test.visibleOnly')), 'true');

    // DevTools' handle on the service worker's registration, kept on a tab of another origin.
    const blank = await context.newPage();
    const cdp = await context.newCDPSession(blank);
    const registrations = new Map<string, string>();
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: list }) => {
      for (const r of list) registrations.set(r.scopeURL, r.registrationId);
    });
    await cdp.send('ServiceWorker.enable');
    await page.close();

    const id = await inbound('Is the quote ready?');
    const [request] = await push.waitFor(subscriber.path, 1);
    const payload = subscriber.read(request!);
    assert.equal(payload.url, `/app/inbox/${id}`);
    const registrationId = registrations.get(`${s.t.url}/app/`);
    assert.ok(registrationId, `a registration for /app/: ${[...registrations.keys()].join(', ')}`);
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: s.t.url,
      registrationId,
      data: JSON.stringify(payload),
    });
    const [worker] = context.serviceWorkers();
    assert.ok(worker);
    const notifications = async () =>
      worker.evaluate(() =>
        (self as unknown as WorkerScope).registration
          .getNotifications()
          .then((list) => list.map((n) => ({ title: n.title, body: n.body, data: n.data }))),
      );
    let list = await notifications();
    for (let i = 0; i < 50 && list.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = await notifications();
    }
    assert.equal(list.length, 1);
    assert.equal(list[0]!.body, 'Is the quote ready?');
    assert.deepEqual(list[0]!.data, { url: `/app/inbox/${id}` });

    // The app is opened again on another screen; the notification's click takes it to the thread.
    const again = await context.newPage();
    await again.goto('/app/calls');
    await again.getByRole('navigation', { name: 'Main' }).waitFor();
    await worker.evaluate(() =>
      (self as unknown as WorkerScope).registration
        .getNotifications()
        .then((list) =>
          (
            self as unknown as { openFromNotification(n: Notification): Promise<unknown> }
          ).openFromNotification(list[0]!),
        ),
    );
    await again.waitForURL(new RegExp(`/app/inbox/${id}$`));
    await again.getByRole('group', { name: 'Team' }).waitFor();
    // A live-mode thread's link (delivery/push-notifier.ts) opens the app in live mode.
    await again.goto('/app/calls?mode=live');
    assert.ok(await again.getByRole('radio', { name: 'Live' }).first().isChecked());
    await again.goto('/app/calls?mode=test');
    assert.ok(await again.getByRole('radio', { name: 'Test' }).first().isChecked());
    await context.close();
  });
});
