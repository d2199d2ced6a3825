// The sandbox document's reference on the site: a page of its own (dist/sandbox/index.html, served at /sandbox/),
// titled as the reference sandbox's helpers and never the service's, holding the sandbox's operations and none of
// the contract's; the sandbox guide on the contract's page links it, and it links back to the guides. The global
// set-up builds the site.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadSandboxSpec, loadSpec, operations } from '@cls-api/spec';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import { docsSpec } from '../src/docs-spec.js';
import { startDocs, type DocsServer } from '../src/index.js';
import { decisionsPath, siteDir, siteIndex } from '../src/paths.js';
import {
  SANDBOX_GUIDE_TAG,
  SANDBOX_PAGE,
  SANDBOX_PAGE_TITLE,
  sandboxGuides,
  sandboxPageSpec,
} from '../src/sandbox-guides.js';

const sandbox = loadSandboxSpec();
const sandboxOps = operations(sandbox);
const contractOps = operations(loadSpec());
const pageFile = join(siteDir, SANDBOX_PAGE, 'index.html');
type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
// Redoc renders lazily; the generous waits are for a loaded 2-core machine, never fixed sleeps.
const WAIT = { timeout: 60_000 };

describe("the sandbox reference page's document", () => {
  it('is the sandbox document titled as the sandbox’s, without its guides, leading to them on the contract’s page', () => {
    const doc = sandboxPageSpec(sandbox);
    expect(doc.info.title).toBe(SANDBOX_PAGE_TITLE);
    expect(doc.info.title).toMatch(/sandbox/i);
    expect(doc.info.title).toMatch(/not the service/);
    expect(operations(doc).map((o) => o.operationId)).toEqual(sandboxOps.map((o) => o.operationId));
    const tags = (doc.tags ?? []) as Tag[];
    expect(tags.filter((t) => t['x-traitTag'])).toEqual([]);
    const intro = String(doc.info.description);
    for (const guide of sandboxGuides(sandbox)) {
      expect(intro).toContain(`[${guide.name}](/${guide.name.toLowerCase().replace(/ /g, '-')})`);
    }
    expect(intro).toContain('](/)');
    // The source's link to a guide of its own document (`#tag/…`) leads to that guide on the contract's page.
    expect(String(sandbox.info.description)).toContain('](#tag/Forced-outcomes)');
    expect(intro).not.toContain('#tag/');
    expect(intro).toContain('[Forced outcomes](/forced-outcomes)');
  });

  it('is linked, path-form and under the site’s path, from "Testing against the sandbox" on the contract’s page', () => {
    const decisions = readFileSync(decisionsPath, 'utf8');
    for (const base of ['/', '/contract/']) {
      const { doc, sandboxDoc } = docsSpec(loadSpec(), decisions, undefined, base, sandbox);
      const guide = (doc.tags as Tag[]).find((t) => t.name === SANDBOX_GUIDE_TAG)!;
      expect(guide.description).toContain(`](${base}${SANDBOX_PAGE}/)`);
      expect(String(sandboxDoc!.info.description)).toContain(`[Forced outcomes](${base}forced-outcomes)`);
    }
  });
});

describe('the built site', () => {
  it('holds the sandbox reference page, its own sections linked under its path, each with its route page', () => {
    expect(existsSync(pageFile)).toBe(true);
    const html = readFileSync(pageFile, 'utf8');
    expect(html).toContain(`<title>${SANDBOX_PAGE_TITLE} ${sandbox.info.version}</title>`);
    expect(html).toContain(`var base = '/${SANDBOX_PAGE}/'`);
    const sections = [...html.matchAll(/data-section-id="\/([^"]*)"/g)].map((m) => m[1]!);
    expect(sections).toContain('sandbox');
    const contractTags = new Set(contractOps.flatMap((o) => o.tags.map((t) => t.toLowerCase().replace(/ /g, '-'))));
    for (const section of sections) expect(contractTags.has(section.split('/')[0]!), section).toBe(false);
    // Every root-absolute link is the page's own section (under /sandbox/, with a route page) or a page of the
    // contract's page.
    const contractPage = readFileSync(siteIndex, 'utf8');
    for (const [, href] of html.matchAll(/href="(\/[^"]*)"/g)) {
      if (href!.startsWith(`/${SANDBOX_PAGE}/`)) {
        expect(existsSync(join(siteDir, href!, 'index.html')), href).toBe(true);
        expect(readFileSync(join(siteDir, href!, 'index.html'), 'utf8')).toContain(
          `/${SANDBOX_PAGE}/#/${href!.slice(SANDBOX_PAGE.length + 2)}`,
        );
      } else if (href !== '/') {
        expect(existsSync(join(siteDir, href!, 'index.html')), href).toBe(true);
        expect(contractPage).toContain(`"/${href!.slice(1)}"`);
      }
    }
  });

  it("on a static host, the contract's 404.html passes a sandbox section's path on to that section of the sandbox page", () => {
    // The page's first script, the one that reads the path (template.hbs), run on a given address: where it sends
    // the browser (location.replace) or which hash it gives the page (history.replaceState).
    const opened = (file: string, pathname: string, hash = '') => {
      const script = /<script>([\s\S]*?)<\/script>/.exec(readFileSync(file, 'utf8'))![1]!;
      const seen: { replaced?: string; state?: string } = {};
      runInNewContext(script, {
        location: { pathname, hash, replace: (url: string) => (seen.replaced = url) },
        history: { replaceState: (_state: unknown, _title: string, url: string) => (seen.state = url) },
      });
      return seen;
    };
    const notFound = join(siteDir, '404.html');
    // A static host has route pages for the sections the page links (`/sandbox/sandbox`), not for each operation's.
    expect(existsSync(join(siteDir, SANDBOX_PAGE, 'sandbox', 'setsandboxclock', 'index.html'))).toBe(false);
    expect(opened(notFound, `/${SANDBOX_PAGE}/sandbox/setsandboxclock`)).toEqual({
      replaced: `/${SANDBOX_PAGE}/#/sandbox/setsandboxclock`,
    });
    expect(opened(notFound, `/${SANDBOX_PAGE}/sandbox/setsandboxclock/`, '#/sandbox/getsandboxclock')).toEqual({
      replaced: `/${SANDBOX_PAGE}/#/sandbox/getsandboxclock`,
    });
    expect(opened(notFound, `/${SANDBOX_PAGE}`)).toEqual({ replaced: `/${SANDBOX_PAGE}/` });
    // The contract's own sections stay on its page, a path that only begins like the sandbox's included.
    expect(opened(notFound, '/wms-orders/registerdraftorders')).toEqual({ state: '/#/wms-orders/registerdraftorders' });
    expect(opened(notFound, `/${SANDBOX_PAGE}es`)).toEqual({ state: `/#/${SANDBOX_PAGE}es` });
    expect(opened(notFound, '/')).toEqual({});
    // The sandbox page opens its own sections itself.
    expect(opened(pageFile, `/${SANDBOX_PAGE}/sandbox/setsandboxclock`)).toEqual({
      state: `/${SANDBOX_PAGE}/#/sandbox/setsandboxclock`,
    });
  });

  it('is served at /sandbox/ (and /sandbox/index.html, and its section paths) as text/html', async () => {
    const docs = await startDocs();
    try {
      const page = readFileSync(pageFile, 'utf8');
      for (const path of [
        'sandbox/',
        'sandbox/index.html',
        'sandbox',
        'sandbox/sandbox',
        'sandbox/sandbox/resetsandbox',
      ]) {
        const res = await fetch(`${docs.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
        expect(await res.text(), path).toBe(page);
      }
      for (const path of ['sandbox/nope', 'sandbox/wms-orders', 'sandbox/sandbox/a.b']) {
        expect((await fetch(`${docs.url}${path}`)).status, path).toBe(404);
      }
      expect(await (await fetch(docs.url)).text()).toBe(readFileSync(siteIndex, 'utf8'));
    } finally {
      await docs.close();
    }
  });
});

describe('the sandbox reference page in a browser', () => {
  let docs: DocsServer;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const executablePath = await ensureChromium();
    docs = await startDocs();
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(WAIT.timeout);
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location().url})`);
    });
    page.on('pageerror', (err) => consoleErrors.push(`uncaught: ${err.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await docs?.close();
  });

  it('shows the four sandbox operations and no operation of the contract', async () => {
    await page.goto(`${docs.url}${SANDBOX_PAGE}/`, { waitUntil: 'load', timeout: 120_000 });
    expect(await page.title()).toContain(SANDBOX_PAGE_TITLE);
    await page.locator('[id="sandbox"]').waitFor({ state: 'attached', ...WAIT });
    const ids = sandboxOps.map((o) => o.operationId);
    expect(ids.sort()).toEqual(['getSandboxClock', 'resetSandbox', 'resetSandboxClock', 'setSandboxClock']);
    // The menu lists exactly these operations (Redoc's hash routes, `#/sandbox/resetsandbox`).
    const menu = await page.locator('a[href^="#/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    const menuOps = menu.filter((h) => h.slice(2).includes('/')).map((h) => h.slice(2).split('/')[1]!);
    expect(menuOps.sort()).toEqual(ids.map((id) => id.toLowerCase()).sort());
    for (const op of sandboxOps) {
      const id = `sandbox/${op.operationId.toLowerCase()}`;
      await page.evaluate((h) => {
        window.location.hash = h;
      }, `#/${id}`);
      const section = page.locator(`[id="${id}"]`);
      await section.waitFor({ state: 'attached', ...WAIT });
      await expect.poll(() => section.innerText(), WAIT).toContain(op.path);
      expect(op.path.startsWith('/sandbox/'), op.path).toBe(true);
    }
    const text = await page.locator('#api-content').innerText();
    // The introduction speaks of `/v3/` operations; no operation of the contract, by its path, is on the page.
    for (const op of contractOps) expect(text, op.operationId).not.toContain(op.path);
    for (const op of contractOps) expect(menu, op.operationId).not.toContain(`#/${op.operationId.toLowerCase()}`);
    expect(consoleErrors).toEqual([]);
  });

  it('opens a section named by its path, and leads back to a guide on the contract’s page', async () => {
    await page.goto(`${docs.url}${SANDBOX_PAGE}/sandbox/setsandboxclock`, { waitUntil: 'load', timeout: 120_000 });
    expect(new URL(page.url()).pathname).toBe(`/${SANDBOX_PAGE}/`);
    await page.locator('[id="sandbox/setsandboxclock"]').waitFor({ state: 'attached', ...WAIT });
    await page.goto(`${docs.url}${SANDBOX_PAGE}/`, { waitUntil: 'load', timeout: 120_000 });
    await page.locator('#api-content a', { hasText: 'Forced outcomes' }).first().click();
    await page.waitForURL((url) => url.pathname === '/' && url.hash === '#/forced-outcomes', WAIT);
    await page.locator('[id="forced-outcomes"]').waitFor({ state: 'attached', ...WAIT });
  });

  it('is reached from "Testing against the sandbox" on the contract’s page', async () => {
    await page.goto(`${docs.url}#/testing-against-the-sandbox`, { waitUntil: 'load', timeout: 120_000 });
    const link = page.locator('#api-content a', { hasText: "the sandbox's reference" }).first();
    await link.waitFor({ state: 'attached', ...WAIT });
    expect(await link.getAttribute('href')).toBe(`/${SANDBOX_PAGE}/`);
    await link.click();
    await page.waitForURL((url) => url.pathname === `/${SANDBOX_PAGE}/`, WAIT);
    await page.locator('[id="sandbox"]').waitFor({ state: 'attached', ...WAIT });
    expect(consoleErrors).toEqual([]);
  });
});
