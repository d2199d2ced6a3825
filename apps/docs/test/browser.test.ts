// The built site in a real browser (Debian's Chromium through playwright-core): every guide and every operation is
// there with its code samples, nothing is loaded from the network, and the console stays clean. Screenshots go to
// reports/screenshots/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { operations, type OpenApiDocument } from '@cls-api/spec';
import { PROVISIONAL_TAG, provisionalElements, SAMPLE_LABELS, startDocs, type DocsServer } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';

const screenshots = resolve(import.meta.dirname, '..', 'reports', 'screenshots');
// The document the site was built from (the global set-up builds it): the contract plus the docs additions.
const doc = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const ops = operations(doc);
type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
const tags = (doc.tags ?? []) as Tag[];
const guides = tags.filter((t) => t['x-traitTag'] === true);
const tagGroups = (doc['x-tagGroups'] ?? []) as Array<{ name: string; tags: string[] }>;
// Redoc renders a long page lazily; the generous waits are for a loaded 2-core machine, never fixed sleeps.
const WAIT = { timeout: 60_000 };

let docs: DocsServer;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const offSiteRequests: string[] = [];
/** Sidebar links of the tags, by tag name: Redoc's page path of each tag (`/wms-orders`). */
const tagPaths = new Map<string, string>();

beforeAll(async () => {
  const executablePath = await ensureChromium();
  docs = await startDocs();
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
  mkdirSync(screenshots, { recursive: true });
  page = await openWatched();
});

/** A page on the site whose console errors and off-site requests are recorded. */
async function openWatched(): Promise<Page> {
  const opened = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  opened.setDefaultTimeout(WAIT.timeout);
  opened.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location().url})`);
  });
  opened.on('pageerror', (err) => consoleErrors.push(`uncaught: ${err.message}`));
  opened.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(docs.url) && !url.startsWith('data:') && !url.startsWith('blob:')) offSiteRequests.push(url);
  });
  await opened.goto(docs.url, { waitUntil: 'load', timeout: 120_000 });
  return opened;
}

afterAll(async () => {
  await browser?.close();
  await docs?.close();
});

async function show(hash: string, id: string, on: Page = page): Promise<void> {
  await on.evaluate((h) => {
    window.location.hash = h;
  }, hash);
  const section = on.locator(`[id="${id}"]`);
  await section.waitFor({ state: 'attached', ...WAIT });
  await section.scrollIntoViewIfNeeded();
}

async function shot(name: string, on: Page = page): Promise<void> {
  await on.screenshot({ path: join(screenshots, `${name}.png`) });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The `## ` and `### ` headings of a markdown description. */
function headingsOf(markdown: string | undefined): string[] {
  return (markdown ?? '')
    .split('\n')
    .map((l) => /^#{2,3} (.+)$/.exec(l)?.[1]?.replace(/[`*]/g, '').trim())
    .filter((h): h is string => Boolean(h));
}

/** The string nearest the top of a JSON value (breadth first): the part of an example Redoc shows unfolded. */
function shallowestString(value: unknown): string | undefined {
  let level: unknown[] = [value];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const node of level) {
      if (typeof node === 'string' && node.length > 0) return node;
      if (node && typeof node === 'object') next.push(...Object.values(node as object));
    }
    level = next;
  }
  return undefined;
}

describe('the documentation site in Chromium', () => {
  it('opens with the API title and description', async () => {
    await page
      .getByRole('heading', { name: new RegExp(doc.info.title) })
      .first()
      .waitFor(WAIT);
    await shot('home');
  });

  it('lists every tag group, every guide and every operation tag in the sidebar', async () => {
    for (const group of tagGroups) {
      await expect(page.getByText(group.name, { exact: true }).first().isVisible(), group.name).resolves.toBe(true);
    }
    for (const tag of tags) {
      const link = page.getByRole('link', { name: tag.name, exact: true }).first();
      await link.waitFor({ state: 'attached', ...WAIT });
      const href = await link.getAttribute('href');
      expect(href, tag.name).toMatch(/^\/[a-z0-9-]+$/);
      tagPaths.set(tag.name, href!);
    }
    expect([...tagPaths.keys()].sort()).toEqual(tags.map((t) => t.name).sort());
  });

  // The guides in the first page and the operations in a second one, read at once; each in turn within its page.
  describe.concurrent('its guides', () => {
    // Each case with its own `expect`: the two pages' cases run at once.
    it.sequential.for(guides.map((g) => [g.name, g] as const))(
      'shows the guide "%s" with every heading in the sidebar and the page',
      async ([name, guide], { expect }) => {
        const path = tagPaths.get(name)!;
        await show(`#${path}`, path.slice(1));
        const headings = headingsOf(guide.description);
        expect(headings.length, `${name} has headings`).toBeGreaterThan(0);
        for (const heading of headings) {
          // The active guide's headings are its sidebar entries; Redoc renders the page around the one shown.
          const link = page
            .locator(`a[href^="#${path}/"]`)
            .filter({ hasText: new RegExp(`^${escapeRegExp(heading)}$`) })
            .first();
          await link.waitFor({ state: 'attached', ...WAIT });
          const href = (await link.getAttribute('href'))!;
          await show(href, href.slice(2));
          await expect
            .poll(() => page.locator(`[id="${href.slice(2)}"]`).innerText(), {
              ...WAIT,
              message: `${name}: ${heading}`,
            })
            .toContain(heading);
        }
        if (name === 'Rate limits and quotas') {
          await show(`#${path}`, path.slice(1));
          await shot('guide-rate-limits');
        }
      },
    );

    it.sequential('lists every provisional element in the "Provisional elements" guide', async ({ expect }) => {
      const path = tagPaths.get(PROVISIONAL_TAG)!;
      const sections = { operation: 'Operations', parameter: 'Parameters', schema: 'Schemas' } as const;
      const missing: string[] = [];
      for (const [kind, title] of Object.entries(sections)) {
        await show(`#${path}`, path.slice(1));
        const link = page
          .locator(`a[href^="#${path}/"]`)
          .filter({ hasText: new RegExp(`^${title}$`) })
          .first();
        const href = (await link.getAttribute('href', WAIT))!;
        await show(href, href.slice(2));
        const text = await page.locator(`[id="${href.slice(2)}"]`).innerText();
        for (const e of provisionalElements(doc).filter((x) => x.kind === kind)) {
          const shown = e.kind === 'operation' ? e.name : e.where.replace(/`/g, '');
          if (!text.includes(shown)) missing.push(`${e.kind} ${e.name}`);
        }
        if (kind === 'operation') await shot('guide-provisional-elements');
      }
      expect(missing).toEqual([]);
    });
  });

  describe.concurrent('its operations, in a second page', () => {
    let opsPage: Page;
    beforeAll(async () => {
      opsPage = await openWatched();
    });

    it.sequential.for(ops.map((op) => [op.operationId, op] as const))(
      'shows operation %s with its examples and curl sample',
      async ([, op], { expect }) => {
        const id = `${tagPaths.get(op.tags[0]!)!.slice(1)}/${op.operationId.toLowerCase()}`;
        await show(`#/${id}`, id, opsPage);
        const section = opsPage.locator(`[id="${id}"]`);
        await expect.poll(() => section.innerText(), WAIT).toContain(doc.paths![op.path]![op.method]!.summary!);
        // The right panel: the curl sample of this very operation, and its first success example.
        const curl = opsPage.locator('pre').filter({
          hasText: `curl -sS${op.method === 'get' ? '' : ` -X ${op.method.toUpperCase()}`} "$CLS_BASE_URL${op.path.split('{')[0]}`,
        });
        await curl.first().waitFor({ state: 'attached', ...WAIT });
        const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))![1];
        const value = shallowestString(Object.values(success.examples)[0]!.value);
        expect(value, `${op.operationId}'s success example has a string to look for`).toBeDefined();
        // Shown in the response example, or (where the example keeps it deeper than the rendered levels) in the request
        // sample, which makes an identifier it creates fresh on every run (`"MALL-A-10002-$RUN"`, src/samples.ts).
        const quoted = value!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        await opsPage
          .locator('pre')
          .filter({ hasText: new RegExp(`"${quoted}(-\\$RUN)?"`) })
          .first()
          .waitFor({ state: 'attached', ...WAIT });
        if (op.operationId === 'registerDraftOrders') await shot('operation-registerDraftOrders-curl', opsPage);
      },
    );

    it.sequential("switches every operation's sample to the TypeScript client", async () => {
      const first = ops[0]!;
      const firstId = `${tagPaths.get(first.tags[0]!)!.slice(1)}/${first.operationId.toLowerCase()}`;
      await show(`#/${firstId}`, firstId, opsPage);
      await opsPage.getByRole('button', { name: 'curl', exact: true }).first().click();
      await opsPage.getByRole('menuitem', { name: 'TypeScript', exact: true }).click();
      for (const op of ops) {
        const id = `${tagPaths.get(op.tags[0]!)!.slice(1)}/${op.operationId.toLowerCase()}`;
        await show(`#/${id}`, id, opsPage);
        const call = `client.${op.method.toUpperCase()}('${op.path}'`;
        await opsPage
          .locator('pre')
          .filter({ hasText: call })
          .first()
          .waitFor({ state: 'attached', ...WAIT });
        if (op.operationId === 'registerDraftOrders') await shot('operation-registerDraftOrders-typescript', opsPage);
      }
    });

    it.sequential('offers the samples in the six languages, each showing its own code', async ({ expect }) => {
      const op = ops.find((o) => o.operationId === 'registerDraftOrders')!;
      const id = `${tagPaths.get(op.tags[0]!)!.slice(1)}/${op.operationId.toLowerCase()}`;
      await show(`#/${id}`, id, opsPage);
      const section = opsPage.locator(`[id="${id}"]`);
      // A line only that language's sample holds (src/samples.ts).
      const marks: Record<string, string> = {
        [SAMPLE_LABELS.python]: 'response = requests.post(url',
        [SAMPLE_LABELS.java]: 'HttpRequest.newBuilder()',
        [SAMPLE_LABELS.go]: 'http.NewRequest("POST", url, payload)',
        [SAMPLE_LABELS.php]: 'curl_setopt_array($curl, [',
        [SAMPLE_LABELS.curl]: 'curl -sS -X POST',
      };
      for (const [label, mark] of Object.entries(marks)) {
        await section
          .getByRole('button', { name: /^(curl|TypeScript|Python|Java|Go|PHP)$/ })
          .first()
          .click();
        const items = await opsPage.getByRole('menuitem').allInnerTexts();
        expect(items.map((t) => t.trim())).toEqual(Object.values(SAMPLE_LABELS));
        await opsPage.getByRole('menuitem', { name: label, exact: true }).click();
        await section
          .locator('pre')
          .filter({ hasText: mark })
          .first()
          .waitFor({ state: 'attached', ...WAIT });
        if (label === SAMPLE_LABELS.python) await shot('operation-registerDraftOrders-python', opsPage);
      }
    });
  });

  it('logged no console error and loaded nothing from outside the local server', () => {
    expect(consoleErrors).toEqual([]);
    expect(offSiteRequests).toEqual([]);
  });
});
