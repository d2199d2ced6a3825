// A reader leaves the site open past the server's timeouts and reloads, in Chromium, in the same tab: the page is
// shown again, never a blank "Bad request". Chromium keeps a spare connection, one it has never sent on, next to the
// one it used; an answer the server wrote on the spare at the headers timeout is the one Chromium reads for the
// reload. Chromium reaches the server through a SOCKS relay (startRecordingProxy of @cls-api/chromium) that reads
// every answer the server wrote and lets the test hold a connection's set-up: that is how the spare is made, for
// certain. The server runs with its own timeouts scaled down to a one-second headers timeout, in the same
// proportions, so the wait is short; each step waits for an outcome (a connection held, a fetch cancelled, the
// server closing), never a fixed time.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { OpenApiDocument } from '@cls-api/spec';
import {
  CHROMIUM_ARGS,
  ensureChromium,
  keepSpareConnection,
  type RecordingProxy,
  startRecordingProxy,
} from '@cls-api/chromium';
import { startDocs, type DocsServer } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';
import { TIMEOUTS } from '../src/server.js';

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
  // Chromium sends loopback traffic past a proxy unless told not to (`<-loopback>`).
  browser = await chromium.launch({
    executablePath,
    args: [...CHROMIUM_ARGS, `--proxy-server=${proxy.proxyServer}`, '--proxy-bypass-list=<-loopback>'],
    timeout: 120_000,
  });
  page = await browser.newPage();
  page.setDefaultTimeout(WAIT.timeout);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await docs?.close();
});

const heading = () => page.getByRole('heading', { name: doc.info.title }).first();

/** Leaves a spare beside the page's connection, waits until the server has closed them all, and reloads. */
async function reloadPastTheTimeouts(): Promise<void> {
  const answered = proxy.connections.flatMap((c) => c.statuses).length;
  const spare = await keepSpareConnection(page, proxy, '/openapi.json', WAIT.timeout);
  // Returned once the server has closed it and the page's connection: the tab was left open past both timeouts.
  expect(spare.requests).toEqual([]);
  expect(spare.requestBytes).toBe(0);

  const again = await page.reload({ waitUntil: 'load', ...WAIT });
  expect([200, 304]).toContain(again?.status());
  await heading().waitFor(WAIT);
  await expect(page.title()).resolves.toContain(doc.info.title);
  await expect(page.locator('body').innerText()).resolves.not.toMatch(/bad request/i);
  // The fetch the spare was made with, and the reload, besides what was answered before.
  const statuses = proxy.connections.flatMap((c) => c.statuses);
  expect(statuses.length).toBeGreaterThanOrEqual(answered + 2);
  expect(statuses.filter((s) => s !== 200 && s !== 304)).toEqual([]);
}

describe('a page left open past the headers timeout, then reloaded, in Chromium', () => {
  it('shows the page again, and the server answered nothing but the page', async () => {
    const first = await page.goto(docs.url, { waitUntil: 'load', ...WAIT });
    expect(first?.status()).toBe(200);
    await heading().waitFor(WAIT);
    await reloadPastTheTimeouts();
  });

  // What a busy machine does to the case above: the page rendered for longer than the keep-alive timeout, so the
  // server closed the page's connection before the spare was made.
  it("the same when the server closed the page's connection before the spare was made", async () => {
    await proxy.allClosed();
    await reloadPastTheTimeouts();
  });
});
