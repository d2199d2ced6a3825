// CHROMIUM_ARGS as the browser's own processes carry them: a flag Playwright or Chromium dropped or overrode would
// leave every browser test running, only slower, with nothing else to show it.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { expect, it } from 'vitest';
import { CHROMIUM_ARGS, ensureChromium } from '../src/index.js';

it("runs each page's V8 with the flags CHROMIUM_ARGS gives", async () => {
  const jsFlags = CHROMIUM_ARGS.find((a) => a.startsWith('--js-flags='));
  expect(jsFlags).toBeDefined();
  const browser = await chromium.launch({ executablePath: await ensureChromium(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.setContent('<p>a page</p>');
    const cdp = await browser.newBrowserCDPSession();
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: Array<{ type: string; id: number }>;
    };
    const renderers = processInfo.filter((p) => p.type === 'renderer');
    expect(renderers.length).toBeGreaterThan(0);
    for (const { id } of renderers) {
      // A renderer gives itself a title: its arguments joined by spaces, as `ps` shows them.
      const line = readFileSync(`/proc/${id}/cmdline`, 'utf8').replace(/\0/g, ' ');
      expect(line).toContain(` ${jsFlags} `);
      expect(line.split('--js-flags=').length, 'one --js-flags, not overridden').toBe(2);
    }
  } finally {
    await browser.close();
  }
}, 120_000);
