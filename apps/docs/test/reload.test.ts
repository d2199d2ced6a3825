// A reader leaves the site open past the server's timeouts and reloads, in Chromium, in the same tab: the page is
// shown again, never a blank "Bad request", and every answer the server wrote (read off the connections by a relay
// between the two) is the page. The server runs with its own timeouts scaled down to a one-second headers timeout,
// in the same proportions, so the wait is short; the test waits for an outcome (the server has closed every
// connection of the first load), never a fixed time. The headless Chromium here opens no spare connection (one never
// sent on, which a desktop browser's predictor opens): that the server closes such a one without a byte is proved
// on the socket by test/timeouts.test.ts.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { OpenApiDocument } from '@cls-api/spec';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import { startDocs, type DocsServer } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';
import { TIMEOUTS } from '../src/server.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

const doc = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const scale = 1_000 / TIMEOUTS.headersMs;
const timeouts = {
  headersMs: TIMEOUTS.headersMs * scale,
  requestMs: TIMEOUTS.requestMs * scale,
  keepAliveMs: TIMEOUTS.keepAliveMs * scale,
};
const WAIT = { timeout: 60_000 };

let docs: DocsServer;
let proxy: RecordingProxy;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const executablePath = await ensureChromium();
  docs = await startDocs({ timeouts });
  proxy = await startRecordingProxy(docs.port);
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
  page = await browser.newPage();
  page.setDefaultTimeout(WAIT.timeout);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await docs?.close();
});

const heading = () => page.getByRole('heading', { name: doc.info.title }).first();

describe('a page left open past the headers timeout, then reloaded, in Chromium', () => {
  it('shows the page again, and the server answered nothing but the page', async () => {
    const first = await page.goto(proxy.url, { waitUntil: 'load', ...WAIT });
    expect(first?.status()).toBe(200);
    await heading().waitFor(WAIT);
    // The tab stays open until the server has closed every connection of the first load (a used one at the
    // keep-alive timeout, silently; one never sent on at the headers timeout).
    await proxy.allClosed();

    const again = await page.reload({ waitUntil: 'load', ...WAIT });
    expect([200, 304]).toContain(again?.status());
    await heading().waitFor(WAIT);
    await expect(page.title()).resolves.toContain(doc.info.title);
    await expect(page.locator('body').innerText()).resolves.not.toMatch(/bad request/i);
    const statuses = proxy.connections.flatMap((c) => c.statuses);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((s) => s !== 200 && s !== 304)).toEqual([]);
  });
});
