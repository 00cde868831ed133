// Headless Chromium for the softphone's browser tests: Debian's own build, driven by
// playwright-core (which downloads no browser), plus the page-level checks every suite shares.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where Debian installs Chromium (`apt-get install chromium`); overridable for other systems. */
export const CHROMIUM_PATH = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';

/** Phone, tablet and desktop viewports the layout is checked and photographed at. */
export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  tablet: { width: 820, height: 1180 },
  desktop: { width: 1440, height: 900 },
} as const;

/** The gitignored folder the suites save their screenshots to. */
export const SCREENSHOT_DIR = fileURLToPath(
  new URL('../../../../test-results/screenshots/', import.meta.url),
);

const require = createRequire(import.meta.url);
const AXE_PATH = require.resolve('axe-core/axe.min.js');

/** Starts headless Chromium; each test file launches its own and closes it in `after`. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 30_000,
  });
}

/** A fresh context (own cookies and storage) at desktop size, with short default waits. */
export async function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, viewport: VIEWPORTS.desktop });
  context.setDefaultTimeout(5_000);
  return context;
}

/** Signs in through the form, the way a person does, and waits for the softphone to show. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  if (!/\/app/.test(page.url())) await page.goto('/app/');
  await page.getByLabel('Work email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** One axe-core violation, reduced to what a failure message needs. */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** Runs axe-core in the page and fails on any serious or critical violation. */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document): Promise<{ violations: unknown[] }> } }
    ).axe;
    const result = await axe.run(document);
    return result.violations as Violation[];
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join('\n')}`,
    )
    .join('\n');
  assert.equal(bad.length, 0, `${label}: axe found serious or critical violations:\n${report}`);
}

/**
 * Saves `test-results/screenshots/<name>-<phone|tablet|desktop>.png`, resizing the page to each
 * width in turn (and back), after `prepare` has set the screen up for that width.
 */
export async function screenshots(
  page: Page,
  name: string,
  prepare: (viewport: keyof typeof VIEWPORTS) => Promise<void> = async () => undefined,
): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize();
  for (const [key, size] of Object.entries(VIEWPORTS) as [
    keyof typeof VIEWPORTS,
    { width: number; height: number },
  ][]) {
    await page.setViewportSize(size);
    await prepare(key);
    // Let layout settle after the resize (fonts, scroll-to-bottom of threads).
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    await page.screenshot({ path: `${SCREENSHOT_DIR}${name}-${key}.png` });
  }
  if (before) await page.setViewportSize(before);
}

/** Polls `check` until it returns something truthy, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  what: string,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
