// The built site read as a person reads it, in Debian's Chromium at a desktop width (1400 px) and a phone width
// (390 px): guides use the content width, code blocks scroll instead of clipping, identifiers never break inside a
// word, every in-site link resolves, path-form and hash-form links open at their section, the start page's text is as
// wide as a guide's and its servers panel shows the addresses plainly, search works offline, and axe-core finds no
// serious or critical accessibility violation. Screenshots go to reports/screenshots/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, type ExpectStatic, it } from 'vitest';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { operations, type OpenApiDocument } from '@cls-api/spec';
import { startDocs, type DocsServer } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';
import { SANDBOX_PAGE } from '../src/sandbox-guides.js';
import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import { openSearch } from './search.js';
import { mapConcurrently, PAGES_AT_ONCE } from './concurrently.js';

const screenshots = resolve(import.meta.dirname, '..', 'reports', 'screenshots');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const doc = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
type Tag = { name: string; 'x-traitTag'?: boolean };
const tags = (doc.tags ?? []) as Tag[];
const guides = tags.filter((t) => t['x-traitTag'] === true).map((t) => t.name);
const ops = operations(doc);
const WAIT = { timeout: 60_000 };
const DESKTOP = 1400;
const PHONE = 390;
/** The share of the content area a guide's text column takes at least, at the desktop width. */
const GUIDE_COLUMN_SHARE = 0.6;
/** The guides whose first heading reading comfort measures. */
const COMFORT_GUIDES = ['Caching', 'Errors', 'Versioning'];

let docs: DocsServer;
let browser: Browser;
/** Redoc's section id of every tag, by name (`wms-orders`), read from the sidebar. */
const tagIds = new Map<string, string>();
/**
 * Each load of the 3 MB page costs a few CPU-seconds, so a page loaded for one check serves the next where that
 * check would load the same address at the same width: the start page's first load (its transfer counted, its
 * sidebar read) is the desktop page read section by section below; a section's path-form landing (stable links) is
 * the page the reading-comfort checks of that section open.
 */
let startPage: Page | undefined;
/** What the first view of the start page transferred, counted on its first load. */
let firstViewBytes = 0;
/** Pages left loaded at a section's path, by that path, for the next check that opens it. */
const landed = new Map<string, Page>();

beforeAll(async () => {
  const executablePath = await ensureChromium();
  docs = await startDocs();
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
  mkdirSync(screenshots, { recursive: true });
  const page = await browser.newPage({ viewport: { width: DESKTOP, height: 900 } });
  page.setDefaultTimeout(WAIT.timeout);
  // Each request's sizes arrive after the request itself: all are awaited before counting (a size still asked for
  // when the page closed was an unhandled rejection, and a count too low).
  const sizes: Array<Promise<number>> = [];
  const count = (request: Request) => {
    const size = request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize);
    // A request that finishes after the count (a late prefetch) may be asked for its sizes as the page closes.
    size.catch(() => undefined);
    sizes.push(size);
  };
  page.on('requestfinished', count);
  await page.goto(docs.url, { waitUntil: 'networkidle', timeout: 120_000 });
  await page.locator('#api-content').waitFor(WAIT);
  firstViewBytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  page.off('requestfinished', count);
  startPage = page;
  for (const tag of tags) {
    const href = await page
      .locator('[role="navigation"] a, nav a, a')
      .filter({ hasText: new RegExp(`^${tag.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
      .first()
      .getAttribute('href', WAIT);
    tagIds.set(tag.name, href!.replace(/^#?\//, ''));
  }
}, 900_000);

afterAll(async () => {
  await Promise.all([startPage, ...landed.values()].map((p) => p?.close()));
  await browser?.close();
  await docs?.close();
});

async function open(width: number, path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.setDefaultTimeout(WAIT.timeout);
  await page.goto(`${docs.url}${path}`, { waitUntil: 'load', timeout: 120_000 });
  await page.locator('#api-content').waitFor(WAIT);
  return page;
}

/** The page at the section path `path` at the desktop width: the one stable links left there, or a new load. */
async function openLanded(path: string): Promise<Page> {
  const page = landed.get(path);
  if (!page) return open(DESKTOP, path);
  landed.delete(path);
  return page;
}

/** Sets the hash and waits until the section with that id is rendered and scrolled to. */
async function show(page: Page, id: string): Promise<void> {
  await page.evaluate((h) => {
    window.location.hash = h;
  }, `#/${id}`);
  await page.locator(`[id="${id}"]`).waitFor({ state: 'attached', ...WAIT });
}

const opId = (op: (typeof ops)[number]) => `${tagIds.get(op.tags[0]!)}/${op.operationId.toLowerCase()}`;

/** What a reader would see go wrong in the rendered sections `id` and `id/…`. */
function problemsIn(page: Page, id: string): Promise<string[]> {
  return page.evaluate((prefix) => {
    const problems: string[] = [];
    const sections = [...document.querySelectorAll('[id]')].filter(
      (e) => e.id === prefix || e.id.startsWith(`${prefix}/`),
    );
    for (const section of sections) {
      for (const pre of section.querySelectorAll('pre')) {
        const style = getComputedStyle(pre);
        const text = (pre.textContent ?? '').trim().slice(0, 50);
        if (pre.scrollWidth > pre.clientWidth + 1 && !['auto', 'scroll'].includes(style.overflowX))
          problems.push(`code block hides its overflow: ${text}`);
        const box = pre.getBoundingClientRect();
        for (let a = pre.parentElement; a && a !== document.body; a = a.parentElement) {
          const overflow = getComputedStyle(a).overflowX;
          if (overflow === 'visible') continue;
          const outer = a.getBoundingClientRect();
          if (
            overflow !== 'auto' &&
            overflow !== 'scroll' &&
            (box.right > outer.right + 1 || box.left < outer.left - 1)
          )
            problems.push(`code block cut by its container: ${text}`);
          break;
        }
      }
      for (const code of section.querySelectorAll('code')) {
        if (code.closest('pre')) continue;
        if (code.getClientRects().length > 1) problems.push(`identifier split over lines: ${code.textContent}`);
      }
    }
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide`);
    return [...new Set(problems)];
  }, id);
}

/** The in-site links the rendered page holds (hash form `#/x`, path form `/x`), and the section ids it renders. */
function inSiteLinks(page: Page): Promise<{ links: string[]; ids: string[] }> {
  return page.evaluate(() => ({
    links: [...document.querySelectorAll('a[href]')]
      .map((a) => a.getAttribute('href')!)
      .filter((h) => h.startsWith('#/') || (h.startsWith('/') && !h.startsWith('//'))),
    ids: [...document.querySelectorAll('#api-content [id]')].map((e) => e.id),
  }));
}

/** `expect` is the calling test's own: cases that run at once each poll with theirs. */
async function axeViolations(page: Page, expect: ExpectStatic): Promise<string[]> {
  // The search box says "Loading…" while it indexes the page; judge the page a reader uses, once it is ready.
  await expect.poll(() => page.getByTestId('search-trigger').innerText(), WAIT).toMatch(/Search/);
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations as Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}× e.g. ${v.nodes[0]?.target.join(' ')})`);
}

// The two widths read in two pages at once; within a width, one section after another in its one page.
describe.concurrent.each([DESKTOP, PHONE])('the site at %i px', (width) => {
  const links = new Set<string>();
  /** Section ids seen rendered while reading: a link to one of them resolves without another visit. */
  const seen = new Set<string>();
  const collect = async () => {
    const found = await inSiteLinks(page);
    for (const l of found.links) links.add(l);
    for (const id of found.ids) seen.add(id);
  };
  let page: Page;
  beforeAll(async () => {
    // At the desktop width, the start page as the file's set-up loaded it (only its sidebar read so far).
    if (width === DESKTOP && startPage) {
      page = startPage;
      startPage = undefined;
    } else page = await open(width, '');
  }, 300_000);
  afterAll(async () => {
    await page?.close();
  });

  it.sequential('the start page reads cleanly and has no serious accessibility violation', async ({ expect }) => {
    await page.screenshot({ path: join(screenshots, `start-${width}.png`) });
    expect(await problemsIn(page, 'section')).toEqual([]);
    expect(await axeViolations(page, expect)).toEqual([]);
    await collect();
  });

  it.sequential("the start page: its text column as wide as a guide's, beside the overview and servers", async ({
    expect,
  }) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const { share, panel } = await page.evaluate(() => {
      const content = document.getElementById('api-content')!.getBoundingClientRect().width;
      // The start section is the row that holds the title: its text column first, the right-hand panel second.
      const row = document.querySelector('#api-content h1')!.closest('#api-content > div > div > div')!;
      const paragraphs = [...row.children[0]!.querySelectorAll('p')];
      return {
        share: Math.max(...paragraphs.map((p) => p.getBoundingClientRect().width)) / content,
        panel: (row.children[1] as HTMLElement).innerText,
      };
    });
    if (width === DESKTOP)
      expect(share, 'start page: text column / content area').toBeGreaterThanOrEqual(GUIDE_COLUMN_SHARE);
    // The servers: the service's address plainly, as the variable the samples read it from (never `{base_url}` and
    // a variable widget), and the local sandbox as the second server.
    const servers = panel.slice(panel.indexOf('Servers'));
    expect(servers).toContain('Servers');
    expect(servers).not.toContain('{');
    expect(servers).not.toMatch(/Show \d+ variable/);
    expect(servers).toContain('$CLS_BASE_URL');
    const sandbox = (doc.servers as Array<{ url: string }>).find((s) => s.url.startsWith('http'))!;
    expect(servers.indexOf(sandbox.url)).toBeGreaterThan(servers.indexOf('$CLS_BASE_URL'));
  });

  it.sequential.for(guides)('the guide "%s": full width, nothing clipped or split', async (guide, { expect }) => {
    const id = tagIds.get(guide)!;
    await show(page, id);
    // A busy machine once measured this section before Redoc had put the guide's text in it (no paragraph at all):
    // judge the section once its text is there.
    await page
      .locator(`[id="${id}"] p, [id^="${id}/"] p`)
      .first()
      .waitFor({ state: 'attached', ...WAIT });
    expect(await problemsIn(page, id)).toEqual([]);
    if (width === DESKTOP) {
      const share = () =>
        page.evaluate((prefix) => {
          const content = document.getElementById('api-content')!.getBoundingClientRect().width;
          const paragraphs = [...document.querySelectorAll(`[id^="${prefix}/"] p, [id="${prefix}"] p`)];
          return Math.max(...paragraphs.map((p) => p.getBoundingClientRect().width)) / content;
        }, id);
      await expect
        .poll(share, { ...WAIT, message: `${guide}: text column / content area` })
        .toBeGreaterThanOrEqual(GUIDE_COLUMN_SHARE);
    }
    await collect();
    if (guide === 'Getting started') expect(await axeViolations(page, expect)).toEqual([]);
    if (guide === 'Getting started' || guide === 'Rate limits and quotas') {
      await page.locator(`[id="${id}"]`).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(screenshots, `guide-${id}-${width}.png`) });
    }
  });

  it.sequential.for(ops.map((op) => [op.operationId, op] as const))(
    'the operation %s: nothing clipped or split',
    async ([, op], { expect }) => {
      await show(page, opId(op));
      // As with a guide, judge the operation once Redoc has rendered its heading into the section.
      await page
        .locator(`[id="${opId(op)}"] h2`)
        .first()
        .waitFor({ state: 'attached', ...WAIT });
      expect(await problemsIn(page, opId(op))).toEqual([]);
      await collect();
      if (op.operationId === 'registerDraftOrders') {
        await page.screenshot({ path: join(screenshots, `operation-${op.operationId}-${width}.png`) });
        expect(await axeViolations(page, expect)).toEqual([]);
      }
    },
  );

  it.sequential('every in-site link it showed resolves to a section of the site', { timeout: 900_000 }, async ({
    expect,
  }) => {
    expect(links.size).toBeGreaterThan(tags.length);
    const broken: string[] = [];
    for (const href of links) {
      // `#/<section>#<anchor>` is Redoc's link to a field inside a section: the section is what must exist.
      const id = href.replace(/^#?\//, '').split(/[?#]/)[0]!;
      if (id === '') continue;
      if (href.startsWith('/')) {
        const res = await fetch(new URL(href, docs.url));
        if (res.status !== 200) broken.push(`${href}: HTTP ${res.status}`);
        // A file beside the page (llms.txt), or the site's other page (the sandbox's reference,
        // src/sandbox-guides.ts; its sections are sandbox-page.test.ts's): it opens as itself, not as a section.
        if (/\.[a-z]+$/.test(id) || id === `${SANDBOX_PAGE}/`) continue;
      }
      if (seen.has(id)) continue;
      await page.evaluate((h) => {
        window.location.hash = h;
      }, `#/${id}`);
      const found = await page
        .locator(`[id="${id}"]`)
        .waitFor({ state: 'attached', timeout: 15_000 })
        .then(() => true)
        .catch(() => false);
      if (!found) broken.push(`${href}: no section "${id}"`);
    }
    expect(broken).toEqual([]);
  });
});

describe('stable links', () => {
  const targets = () => [
    ...guides.map((g) => tagIds.get(g)!),
    `${tagIds.get('Getting started')}/a-successful-call`,
    opId(ops.find((o) => o.operationId === 'registerDraftOrders')!),
    opId(ops[ops.length - 1]!),
  ];
  /** The section paths reading comfort opens at the desktop width (all among the targets). */
  const readAgain = () =>
    new Set([
      tagIds.get('Rate limits and quotas')!,
      ...COMFORT_GUIDES.map((g) => tagIds.get(g)!),
      opId(ops.find((o) => o.operationId === 'registerDraftOrders')!),
    ]);

  // Two page loads per section, a few at a time (test/concurrently.ts). The limit only tells a hang from an answer,
  // so it is far above what they take. The path-form pages of the sections reading comfort reads are left there for
  // it once they have landed (or not): it would load the same addresses again.
  it('path-form and hash-form links open at their section', { timeout: 600_000 }, async () => {
    const loads = targets().flatMap((id) => [id, `#/${id}`].map((form) => ({ id, form })));
    const kept = readAgain();
    const landings = await mapConcurrently(loads, PAGES_AT_ONCE, async ({ id, form }) => {
      const page = await open(DESKTOP, form);
      let keep = false;
      try {
        const section = page.locator(`[id="${id}"]`);
        await section.waitFor({ state: 'attached', ...WAIT });
        // Redoc scrolls once the page has laid out: wait for the section to reach the top of the window.
        const landing = await page
          .waitForFunction(
            (target) => {
              const top = document.getElementById(target)?.getBoundingClientRect().top;
              return top !== undefined && top > -20 && top < 200;
            },
            id,
            WAIT,
          )
          .then(() => true)
          .catch(() => false);
        keep = form === id && kept.has(id);
        return landing;
      } finally {
        if (keep) landed.set(id, page);
        else await page.close();
      }
    });
    expect(loads.filter((_, i) => !landings[i]).map(({ form }) => `/${form}`)).toEqual([]);
  });
});

describe('search', () => {
  it('finds an operation offline, from the page alone', async () => {
    const page = await open(DESKTOP, '');
    const requests: string[] = [];
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(docs.url) && !url.startsWith('data:') && !url.startsWith('blob:')) requests.push(url);
    });
    const op = ops.find((o) => o.operationId === 'registerDraftOrders')!;
    const summary = doc.paths![op.path]![op.method]!.summary!;
    const before = await page.getByText(summary).count();
    await openSearch(page);
    await page.keyboard.type('draft orders');
    // The results list the operation beside the sidebar's own entry.
    await expect.poll(() => page.getByText(summary).count(), WAIT).toBeGreaterThan(before);
    await page.screenshot({ path: join(screenshots, 'search-1400.png') });
    expect(requests).toEqual([]);
    await page.close();
  });
});

// Each case reads pages of its own (loaded for it, or left at their section by stable links): they run at once, as
// many as the configuration's maxConcurrency.
describe.concurrent('reading comfort', () => {
  it('a guide table wider than a phone says it scrolls; one that fits says nothing', async ({ expect }) => {
    const id = tagIds.get('Rate limits and quotas')!;
    const hints = async (width: number) => {
      const page = width === DESKTOP ? await openLanded(id) : await open(width, id);
      await page.locator('.md-table-wrapper').first().waitFor(WAIT);
      // The script marks tables once laid out: wait until it has judged them all.
      await expect
        .poll(() =>
          page.evaluate(() =>
            [...document.querySelectorAll('.md-table-wrapper')].every(
              (t) => t.classList.contains('cls-scrolls') === t.querySelector('table')!.scrollWidth > t.clientWidth + 1,
            ),
          ),
        )
        .toBe(true);
      const found = await page.evaluate(() =>
        [...document.querySelectorAll('.md-table-wrapper')].map((t) => ({
          scrolls: t.scrollWidth > t.clientWidth + 1,
          hint: getComputedStyle(t, '::before').content,
        })),
      );
      await page.close();
      return found;
    };
    const phone = await hints(PHONE);
    expect(phone.some((t) => t.scrolls)).toBe(true);
    for (const t of phone) expect(t.hint.includes('Scroll sideways'), JSON.stringify(t)).toBe(t.scrolls);
    for (const t of await hints(DESKTOP)) expect(t.hint).toBe('none');
  });

  it('the menu button on a phone is a bar along the bottom, and the last line of a page scrolls clear of it', async ({
    expect,
  }) => {
    const page = await open(PHONE, tagIds.get('Caching')!);
    const button = page.getByRole('button', { name: 'Open navigation menu' });
    await button.waitFor(WAIT);
    const { bar, lastText, pageEnd } = await page.evaluate(() => {
      const b = document.querySelector('button[aria-label="Open navigation menu"]')!.getBoundingClientRect();
      const texts = [...document.querySelectorAll('#api-content p, #api-content li, #api-content td')].filter(
        (e) => e.getBoundingClientRect().height > 0,
      );
      return {
        bar: { left: b.left, right: b.right, top: b.top, bottom: b.bottom },
        // In page coordinates: where the last text ends, and where the page ends.
        lastText: Math.max(...texts.map((e) => e.getBoundingClientRect().bottom + window.scrollY)),
        pageEnd: document.documentElement.scrollHeight,
      };
    });
    expect(bar.left).toBeLessThanOrEqual(0);
    expect(bar.right).toBeGreaterThanOrEqual(PHONE - 1);
    expect(bar.bottom).toBeGreaterThanOrEqual(899);
    // Scrolled to the end, the page's last text sits above the bar.
    expect(lastText).toBeLessThanOrEqual(pageEnd - (bar.bottom - bar.top) + 1);
    await page.close();
  });

  it.for(COMFORT_GUIDES)('the guide "%s" starts right below its title', async (guide, { expect }) => {
    const page = await openLanded(tagIds.get(guide)!);
    const id = tagIds.get(guide)!;
    const first = page.locator(`[id^="${id}/"] h2`).first();
    await first.waitFor(WAIT);
    const gap = await page.evaluate((prefix) => {
      const title = document.querySelector(`[id="${prefix}"] h1, [id="${prefix}"] h2`)!.getBoundingClientRect();
      const heading = document.querySelector(`[id^="${prefix}/"] h2`)!.getBoundingClientRect();
      return heading.top - title.bottom;
    }, id);
    // Redoc alone leaves about 145 px here, most of it empty padding.
    expect(gap).toBeLessThanOrEqual(90);
    await page.close();
  });

  it("shows every line of the TypeScript samples in the right-hand panel, nothing past the panel's edge", async ({
    expect,
  }) => {
    const page = await openLanded(opId(ops.find((o) => o.operationId === 'registerDraftOrders')!));
    // Redoc keeps laying out the page around the section it scrolled to, so the picker may move between finding it
    // and clicking it: scroll to it and pick TypeScript again until the choice is made.
    const picker = page.getByRole('button', { name: 'curl', exact: true }).first();
    const pick = async () => {
      try {
        await picker.scrollIntoViewIfNeeded({ timeout: 5_000 });
        await picker.click({ timeout: 5_000 });
        await page.getByRole('menuitem', { name: 'TypeScript', exact: true }).click({ timeout: 5_000 });
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(pick, WAIT).toBe(true);
    await page.locator('pre').filter({ hasText: 'createClient' }).first().waitFor(WAIT);
    const hidden = await page.evaluate(() =>
      [...document.querySelectorAll('[data-component-name="Panel/PanelBody"] pre')]
        .filter((p) => p.scrollWidth > p.clientWidth + 1)
        .map((p) => (p.textContent ?? '').slice(0, 60)),
    );
    expect(hidden).toEqual([]);
    await page.close();
  });

  // Counted on the start page's first load, in the file's set-up: every request until the network was idle.
  it('the first view transfers less than 1 MB', ({ expect }) => {
    expect(firstViewBytes).toBeGreaterThan(100_000);
    expect(firstViewBytes).toBeLessThan(1_000_000);
  });
});
