// The set-up every voice browser suite shares: the server with its voice stack (Kamailio,
// rtpengine, the sandbox far end), one account, and Chromium with a fake microphone, plus
// signed-in softphones and the wait for the call events they make.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestAccount } from '../../../server/test/support/app.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import { startVoiceApp, type VoiceTestApp } from '../../../server/test/support/voice.ts';
import { CHROMIUM_PATH, newContext, signIn } from './browser.ts';
import { createLogin, registered, type Login } from './softphone.ts';

/** The voice server, its account and a browser whose microphone is granted and fake. */
export interface VoiceRig {
  t: VoiceTestApp;
  acct: TestAccount;
  browser: Browser;
  close(): Promise<void>;
}

/** Chromium granting a fake microphone without asking, and playing audio without a click. */
export function launchVoiceBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
    ],
    timeout: 30_000,
  });
}

/** Starts the voice server over SQLite with an "Acme Plumbing" account, and the browser. */
export async function startVoiceRig(
  options: Parameters<typeof startVoiceApp>[1] = {},
): Promise<VoiceRig> {
  const t = await startVoiceApp('sqlite', options);
  try {
    const acct = await t.newAccount('Acme Plumbing');
    const browser = await launchVoiceBrowser();
    return {
      t,
      acct,
      browser,
      async close() {
        await browser.close();
        await t.close();
      },
    };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** A new page in its own context, signed in as `login`. */
export async function signedInPage(rig: VoiceRig, login: Login): Promise<Page> {
  const page = await (await newContext(rig.browser, rig.t.url)).newPage();
  await signIn(page, login.email, login.password);
  return page;
}

/** A member's page for each name, each signed in and its softphone registered (15 s at most). */
export async function registeredPhones(rig: VoiceRig, names: string[]): Promise<Page[]> {
  const pages: Page[] = [];
  for (const name of names) {
    const login = await createLogin(rig.t, rig.acct.accountId, 'member', name);
    const page = await (await newContext(rig.browser, rig.t.url)).newPage();
    const ready = registered(page);
    await signIn(page, login.email, login.password);
    await Promise.race([
      ready,
      sleep(15_000).then(() => assert.fail(`${name}'s softphone did not register`)),
    ]);
    pages.push(page);
  }
  return pages;
}

/** The account's sandbox events of `type` once there are at least `count`, polled every 100 ms. */
export async function callEvents(
  rig: VoiceRig,
  type: string,
  count: number,
  timeoutMs = 15_000,
): Promise<any[]> {
  for (let i = 0; i < timeoutMs / 100; i++) {
    const events = await eventsOf(rig.t.store.db, rig.acct.accountId, 'test', type);
    if (events.length >= count) return events;
    await sleep(100);
  }
  assert.fail(`fewer than ${count} ${type} after ${timeoutMs / 1000} s`);
}
