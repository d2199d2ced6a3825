// The reference server's side of a reader's reload (apps/docs/test/reload.test.ts is the docs site's): a tab left open
// on the server's /health past its headers timeout, then reloaded in Chromium, shows the answer again, never the
// 400 INVALID_PARAMETER "not received in time" written on the spare connection Chromium keeps. The spare is made
// for certain through the SOCKS relay of @cls-api/chromium, which also reads every answer the server wrote. The
// server runs with its own timeout settings made short (HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS); each step waits
// for an outcome, never a fixed time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  CHROMIUM_ARGS,
  ensureChromium,
  keepSpareConnection,
  type RecordingProxy,
  startRecordingProxy,
} from '@cls-api/chromium';
import { startReference, type ReferenceServer } from '@cls-api/test-servers';

const WAIT = { timeout: 60_000 };

let reference: ReferenceServer;
let proxy: RecordingProxy;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const executablePath = await ensureChromium();
  reference = await startReference({
    from: import.meta.url,
    env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '3000', KEEP_ALIVE_TIMEOUT_MS: '500' },
  });
  proxy = await startRecordingProxy(Number(new URL(reference.baseUrl).port));
  // Chromium sends loopback traffic past a proxy unless told not to (`<-loopback>`).
  browser = await chromium.launch({
    executablePath,
    args: [...CHROMIUM_ARGS, `--proxy-server=${proxy.proxyServer}`, '--proxy-bypass-list=<-loopback>'],
    timeout: 120_000,
  });
  page = await browser.newPage();
  page.setDefaultTimeout(WAIT.timeout);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await reference?.close();
});

const shown = async () => JSON.parse(await page.locator('body').innerText()) as { data?: { status?: string } };

describe('the reference server: a tab left open past the headers timeout, then reloaded, in Chromium', () => {
  it('shows the answer again, and the server answered nothing but it', async () => {
    const first = await page.goto(new URL('/health', reference.baseUrl).href, { waitUntil: 'load', ...WAIT });
    expect(first?.status()).toBe(200);
    expect((await shown()).data?.status).toBe('ok');
    const spare = await keepSpareConnection(page, proxy, '/health', WAIT.timeout);
    // Returned once the server has closed it and the page's connection: the tab was left open past both timeouts.
    expect(spare.requestBytes).toBe(0);

    const again = await page.reload({ waitUntil: 'load', ...WAIT });
    expect(again?.status()).toBe(200);
    expect((await shown()).data?.status).toBe('ok');
    // Each answer with its request (on a connection, one answer per request, in order): the page's are 200, and the
    // browser's own request for a favicon is the 404 of a path the server does not serve.
    const answers = proxy.connections.flatMap((c) =>
      c.statuses.map((status, i) => `${c.requests[i] ?? '(no request)'} -> ${status}`),
    );
    expect(answers.filter((a) => a === 'GET /health HTTP/1.1 -> 200').length).toBeGreaterThanOrEqual(2);
    expect(
      answers.filter((a) => a !== 'GET /health HTTP/1.1 -> 200' && a !== 'GET /favicon.ico HTTP/1.1 -> 404'),
    ).toEqual([]);
  });
});
