// The console on an operation page, in Debian's Chromium: "Try it" opens Scalar's API client on that operation, the
// reader picks a server (here by typing its address, as for any server), gives a test key and sends; the page shows
// the status, the body and the quota headers the contract declares on that response. Against the reference server
// (the local sandbox) and the mock. A live key is refused in the page: no request leaves the browser.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { deref, operations, type OpenApiDocument } from '@cls-api/spec';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import { keyOf, type ReferenceServer, sparePort, startReference, startServer } from '@cls-api/test-servers';
import { startDocs, type DocsServer } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';
import { LIVE_KEY_REFUSED } from '../console/live-key.js';

const screenshots = resolve(import.meta.dirname, '..', 'reports', 'screenshots');
const doc = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const WAIT = { timeout: 60_000 };

/** The operation the console is tried on, and the headers the contract declares on its 200 answer. */
const OPERATION = 'listWmsOrders';
const op = operations(doc).find((o) => o.operationId === OPERATION)!;
const rawOperation = doc.paths![op.path]![op.method] as { responses: Record<string, object> };
const okResponse = deref<{ headers?: Record<string, unknown> }>(doc, rawOperation.responses['200']!);
const quotaHeaders = Object.keys(okResponse.headers ?? {});

let docs: DocsServer;
let reference: ReferenceServer;
let mock: { url: string; close(): Promise<void> };
let browser: Browser;

beforeAll(async () => {
  const executablePath = await ensureChromium();
  [docs, reference, mock] = await Promise.all([startDocs(), startReference({ from: import.meta.url }), startMockCli()]);
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
  mkdirSync(screenshots, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([docs?.close(), reference?.close(), mock?.close()]);
});

/** The mock as its own process (its CLI), the way one app's tests run another app. */
async function startMockCli(): Promise<{ url: string; close(): Promise<void> }> {
  const cli = createRequire(import.meta.url).resolve('@cls-api/mock/cli');
  const port = await sparePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1' };
  const server = await startServer('mock', process.execPath, [cli, '--quiet'], { port, env, log: () => {} });
  return { url: `http://127.0.0.1:${port}`, close: () => server.stop() };
}

/** A page on the operation, with every request it makes recorded, the console open and the server's address typed. */
async function openConsole(serverUrl: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(WAIT.timeout);
  const requests: string[] = [];
  page.on('request', (req) => requests.push(`${req.method()} ${req.url()}`));
  await page.goto(`${docs.url}#/wms-orders/${OPERATION.toLowerCase()}`, { waitUntil: 'load', timeout: 120_000 });
  await page.locator(`button.cls-try-it[data-operation="${OPERATION.toLowerCase()}"]`).click();
  const client = page.getByRole('dialog', { name: 'API Client' });
  await client.getByRole('button', { name: /Server:/ }).click();
  // The third server takes any address: the one of this run's server.
  await page.getByRole('button', { name: '{base_url}' }).click();
  await page.getByRole('button', { name: /Server:/ }).click();
  await page.getByLabel('base_url').fill(serverUrl);
  await page.getByLabel('base_url').press('Tab');
  await client
    .getByRole('button', { name: /Authentication/ })
    .first()
    .click();
  return { page, requests };
}

/**
 * Gives the key and sends. The client takes an edit a moment after it is typed; its code snippet of the request
 * shows what it will send, so the send waits until the snippet shows every value given.
 */
async function send(page: Page, key: string, expected: string[]): Promise<void> {
  const client = page.getByRole('dialog', { name: 'API Client' });
  await client.getByRole('textbox', { name: 'Value', exact: true }).fill(key);
  const snippetButton = client.getByRole('button', { name: /Code Snippet/ });
  if ((await snippetButton.getAttribute('aria-expanded')) !== 'true') await snippetButton.click();
  const snippet = client.getByRole('region', { name: /Code Snippet/ });
  // The snippet masks the key (attached, not shown).
  for (const text of [key, ...expected])
    await snippet
      .getByText(text, { exact: false })
      .first()
      .waitFor({ state: 'attached', ...WAIT });
  await client.getByRole('button', { name: /^Send get request/ }).click();
}

/** The answer as the page shows it: status line, the response headers (opened) and the body's text. */
async function shown(page: Page): Promise<{ status: string; headers: string; body: string }> {
  const client = page.getByRole('dialog', { name: 'API Client' });
  const status = client.getByText(/^\d{3} [A-Za-z ]+$/).first();
  await status.waitFor(WAIT);
  await client.getByRole('button', { name: /Response Headers/ }).click();
  const headers = await client.getByRole('region', { name: /Response Headers/ }).innerText();
  const body = await client.getByRole('region', { name: 'Body', exact: true }).locator('.cm-content').innerText();
  return { status: (await status.innerText()).trim(), headers, body };
}

// Each case in a page of its own, against servers it only reads from or sends nothing to: the three run at once.
describe.concurrent('console', () => {
  it('sends the request from the operation page to the reference server and shows status, body and quota headers', async ({
    expect,
  }) => {
    expect(quotaHeaders.length).toBeGreaterThan(0);
    const { page, requests } = await openConsole(reference.baseUrl);
    await send(page, keyOf(reference.accounts[0]!, 'wms'), [reference.baseUrl]);
    const answer = await shown(page);
    await page.screenshot({ path: join(screenshots, 'console-reference.png') });
    expect(answer.status).toBe('200 OK');
    expect(answer.body).toContain('"success": true');
    expect(answer.body).toContain('"order_no"');
    for (const name of quotaHeaders)
      expect(answer.headers.toLowerCase()).toMatch(new RegExp(`${name.toLowerCase()}\\s+\\d+`));
    expect(requests.some((r) => r.startsWith(`GET ${reference.baseUrl}${op.path}?`))).toBe(true);
    await page.close();
  });

  it('sends it to the mock, whose quota answer shows the quota headers with their example values', async ({
    expect,
  }) => {
    // The mock serves a scenario by name (Prefer: example=...): the monthly quota used up, whose headers the
    // contract's example declares (x-response-headers).
    const example = deref<{ 'x-response-headers': Record<string, string | number> }>(
      doc,
      doc.components!.examples!.MonthlyQuotaExhausted as { 'x-response-headers': Record<string, string | number> },
    );
    const { page, requests } = await openConsole(mock.url);
    const headersTable = page
      .getByRole('dialog', { name: 'API Client' })
      .getByRole('region', { name: 'Headers', exact: true });
    await headersTable.getByRole('combobox', { name: 'Key' }).last().click();
    await page.keyboard.type('Prefer');
    await page.keyboard.press('Tab');
    // A key typed in the empty last row makes the client add a new empty row, a moment later: the value goes in
    // the row that holds the key, never in "the last row", which may be the new one by now.
    await headersTable.getByRole('row').filter({ hasText: 'Prefer' }).getByRole('combobox', { name: 'Value' }).click();
    await page.keyboard.type('example=monthly_quota_exhausted');
    await page.keyboard.press('Tab');
    await send(page, 'wms_test_console', [mock.url, 'example=monthly_quota_exhausted']);
    const answer = await shown(page);
    await page.screenshot({ path: join(screenshots, 'console-mock.png') });
    expect(answer.status).toBe('429 Too Many Requests');
    expect(answer.body).toContain('"RATE_LIMIT_EXCEEDED"');
    const declared = Object.entries(example['x-response-headers']);
    expect(declared.length).toBeGreaterThan(0);
    for (const [name, value] of declared)
      expect(answer.headers.toLowerCase()).toMatch(new RegExp(`${name.toLowerCase()}\\s+${value}`));
    expect(requests.some((r) => r.startsWith(`GET ${mock.url}${op.path}?`))).toBe(true);
    await page.close();
  });

  it('refuses a live key in the page, with a message, and sends nothing', async ({ expect }) => {
    const { page, requests } = await openConsole(reference.baseUrl);
    const before = requests.length;
    await send(page, keyOf(reference.accounts[0]!, 'wms', 'live'), [reference.baseUrl]);
    const message = page.getByText(LIVE_KEY_REFUSED, { exact: false });
    await message.first().waitFor(WAIT);
    await page.screenshot({ path: join(screenshots, 'console-live-key.png') });
    const sent = requests.slice(before).filter((r) => r.includes(new URL(reference.baseUrl).host));
    expect(sent).toEqual([]);
    await page.close();
  });
});
