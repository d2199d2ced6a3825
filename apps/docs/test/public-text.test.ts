// The site's visible text as a reader meets it, in Chromium with every page visited and every section opened (each
// guide heading, each operation with "Expand all" pressed and each response status shown in turn): no contract-author
// wording outside the "Provisional elements" guide, no raw `provisional: true`, and a "provisional" badge linking to
// that guide on every provisional operation and parameter, once each.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { contractModel, operations, type OpenApiDocument } from '@cls-api/spec';
import { LLMS_INDEX, PROVISIONAL_GUIDE_PATH, PROVISIONAL_TAG, startDocs, type DocsServer } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import { openSearch } from './search.js';

const doc = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const ops = operations(doc);
type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
const tags = (doc.tags ?? []) as Tag[];
const WAIT = { timeout: 60_000 };

/** Wording for the contract's authors that a reader should never meet (the list). */
const AUTHOR_TERMS: readonly RegExp[] = [/the source/gi, /designed/gi, /x-limits/gi, /provisional: true/gi];

let docs: DocsServer;
let browser: Browser;
let page: Page;
const tagPaths = new Map<string, string>();
/** Visible text per place visited, the provisional guide excluded. */
const texts = new Map<string, string>();
/** Badges seen in each provisional operation's own description and in each provisional parameter's row. */
const badges = new Map<string, { count: number; hrefs: string[] }>();

async function show(hash: string, id: string): Promise<void> {
  await page.evaluate((h) => {
    window.location.hash = h;
  }, hash);
  const section = page.locator(`[id="${id}"]`);
  await section.waitFor({ state: 'attached', ...WAIT });
  await section.scrollIntoViewIfNeeded();
}

beforeAll(async () => {
  const executablePath = await ensureChromium();
  docs = await startDocs();
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(WAIT.timeout);
  await page.goto(docs.url, { waitUntil: 'load', timeout: 120_000 });
  await page.locator('#api-content').waitFor(WAIT);
  texts.set('start page', await page.locator('#api-content').innerText());
  for (const tag of tags) {
    const link = page.getByRole('link', { name: tag.name, exact: true }).first();
    tagPaths.set(tag.name, (await link.getAttribute('href', WAIT))!);
  }
  // Every guide, at each of its headings (Redoc renders the page around the section shown).
  for (const tag of tags.filter((t) => t['x-traitTag'] === true && t.name !== PROVISIONAL_TAG)) {
    const path = tagPaths.get(tag.name)!;
    await show(`#${path}`, path.slice(1));
    texts.set(tag.name, await page.locator('#api-content').innerText());
    const hrefs = await page
      .locator(`a[href^="#${path}/"]`)
      .evaluateAll((links) => [...new Set(links.map((a) => a.getAttribute('href')!))]);
    for (const href of hrefs) {
      await show(href, href.slice(2));
      texts.set(`${tag.name} ${href}`, await page.locator(`[id="${href.slice(2)}"]`).innerText());
    }
  }
  // Every operation with its sections expanded, each response status in turn.
  const model = contractModel(doc);
  const provisionalParams = new Set(
    model
      .provisionalElements()
      .filter((e) => e.kind === 'parameter')
      .map((e) => e.name),
  );
  for (const op of ops) {
    const id = `${tagPaths.get(op.tags[0]!)!.slice(1)}/${op.operationId.toLowerCase()}`;
    await show(`#/${id}`, id);
    const section = page.locator(`[id="${id}"]`);
    await section.getByText(doc.paths![op.path]![op.method]!.summary!).first().waitFor(WAIT);
    for (const button of await section.getByRole('button', { name: 'Expand all', exact: true }).all()) {
      if (await button.isVisible()) await button.click();
    }
    const statuses = await section.getByRole('button', { name: /^\d{3}$/ }).all();
    let i = 0;
    for (const status of statuses) {
      await status.click();
      for (const button of await section.getByRole('button', { name: 'Expand all', exact: true }).all()) {
        if (await button.isVisible()) await button.click();
      }
      texts.set(`${op.operationId} ${i++}`, await section.innerText());
    }
    if (statuses.length === 0) texts.set(op.operationId, await section.innerText());
    const operation = doc.paths![op.path]![op.method] as Record<string, unknown>;
    if (operation['x-provisional'] === true) {
      // The operation's own description: the first paragraph block under its title.
      const found = await section.evaluate((el) => {
        const first = el.querySelector('a.cls-provisional');
        const block = first?.closest('p, div');
        const inBlock = block ? block.querySelectorAll('a.cls-provisional').length : 0;
        return { count: inBlock, hrefs: first ? [first.getAttribute('href')!] : [] };
      });
      badges.set(`operation ${op.operationId}`, found);
    }
    for (const raw of (operation.parameters ?? []) as Array<{ $ref?: string }>) {
      const component = raw.$ref?.split('/').pop();
      if (!component || !provisionalParams.has(component) || badges.has(`parameter ${component}`)) continue;
      const param = doc.components!.parameters![component] as { in: string; name: string };
      const row = section.locator(`[id$="in=${param.in}&path=${param.name}"]`).first();
      const found = await row.evaluate((el) => {
        const links = [...el.querySelectorAll('a.cls-provisional')];
        return { count: links.length, hrefs: links.map((a) => a.getAttribute('href')!) };
      });
      badges.set(`parameter ${component}`, found);
    }
  }
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await docs?.close();
});

describe('the visible text of the site', () => {
  it('visited every guide and every operation', () => {
    for (const op of ops)
      expect(
        [...texts.keys()].some((k) => k.startsWith(op.operationId)),
        op.operationId,
      ).toBe(true);
    expect(texts.size).toBeGreaterThan(ops.length);
  });

  it('has no contract-author wording outside the "Provisional elements" guide', () => {
    const found: string[] = [];
    for (const [where, text] of texts) {
      for (const term of AUTHOR_TERMS) {
        for (const m of text.matchAll(term)) {
          found.push(`${where}: …${text.slice(Math.max(0, m.index! - 40), m.index! + m[0].length + 40)}…`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('gives every provisional operation and parameter one "provisional" badge linking to its guide', () => {
    const elements = contractModel(doc)
      .provisionalElements()
      .filter((e) => e.kind === 'operation' || e.kind === 'parameter')
      .map((e) => `${e.kind} ${e.name}`);
    const wrong: string[] = [];
    for (const e of elements) {
      const seen = badges.get(e);
      if (!seen) {
        if (e.startsWith('operation ')) wrong.push(`${e}: not visited`);
        continue;
      }
      if (seen.count !== 1) wrong.push(`${e}: ${seen.count} badges`);
      if (!seen.hrefs.every((h) => h === PROVISIONAL_GUIDE_PATH)) wrong.push(`${e}: links ${seen.hrefs.join(', ')}`);
    }
    expect(wrong).toEqual([]);
    expect([...badges.keys()].filter((k) => k.startsWith('parameter ')).length).toBeGreaterThan(0);
  });

  it('opens the provisional guide from a badge', async () => {
    const op = ops.find((o) => (doc.paths![o.path]![o.method] as Record<string, unknown>)['x-provisional'] === true)!;
    const id = `${tagPaths.get(op.tags[0]!)!.slice(1)}/${op.operationId.toLowerCase()}`;
    await show(`#/${id}`, id);
    await page.locator(`[id="${id}"] a.cls-provisional`).first().click();
    const guide = tagPaths.get(PROVISIONAL_TAG)!;
    await page.locator(`[id="${guide.slice(1)}"]`).waitFor({ state: 'attached', ...WAIT });
    await expect.poll(() => page.evaluate(() => location.pathname + location.hash), WAIT).toContain(guide);
  });

  it('links llms.txt from the start page, and the link opens it', async () => {
    await page.goto(docs.url, { waitUntil: 'load', timeout: 120_000 });
    const link = page.locator(`a[href="/${LLMS_INDEX}"]`).first();
    await link.scrollIntoViewIfNeeded(WAIT);
    await link.click();
    await page.waitForURL(`**/${LLMS_INDEX}`, WAIT);
    expect(await page.locator('body').innerText()).toMatch(/^# /);
  });
});

describe('search', () => {
  // Every word the site's text holds, letters only: a word of an excerpt that is none of them is two glued together.
  const words = new Set(
    JSON.stringify(doc)
      .replace(/\\n/g, ' ')
      .split(/[^A-Za-z]+/)
      .map((w) => w.toLowerCase()),
  );

  it('keeps words apart in its excerpts: across line ends of a paragraph and across table cells', async () => {
    await page.goto(docs.url, { waitUntil: 'load', timeout: 120_000 });
    await openSearch(page);
    const glued: string[] = [];
    let excerpts = 0;
    for (const query of ['apart', 'allocates', 'monthly quota', 'speed limit', 'status']) {
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(query);
      const items = page.locator('[data-component-name="Search/SearchItem"]');
      await items.first().waitFor(WAIT);
      for (const text of await items.allInnerTexts()) {
        excerpts++;
        // An excerpt is cut inside a word where it starts or ends ("…produc..."): those ends are not words.
        for (const word of text.replace(/\S*(\.\.\.|…)\S*/g, ' ').split(/[^A-Za-z]+/)) {
          if (word.length >= 4 && !words.has(word.toLowerCase())) glued.push(`${query}: ${word}`);
        }
      }
    }
    expect(excerpts).toBeGreaterThan(10);
    expect([...new Set(glued)]).toEqual([]);
  });
});
