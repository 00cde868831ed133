// Renders the PNG app icons from the SVG sources in public/icons with the same Chromium the
// browser tests use: `node packages/web/test/tools/render-icons.ts`. The PNGs are committed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../support/browser.ts';

const ICONS = fileURLToPath(new URL('../../public/icons/', import.meta.url));

const targets = [
  { source: 'icon.svg', size: 192, out: 'icon-192.png' },
  { source: 'icon.svg', size: 512, out: 'icon-512.png' },
  { source: 'icon-maskable.svg', size: 512, out: 'icon-maskable-512.png' },
];

const browser = await launchBrowser();
try {
  for (const { source, size, out } of targets) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const svg = readFileSync(ICONS + source, 'utf8');
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`,
    );
    await page.screenshot({ path: ICONS + out, omitBackground: true });
    await page.close();
    console.log(`wrote ${out}`);
  }
} finally {
  await browser.close();
}
