// llms.txt and llms-full.txt: built with the site from the bundle (the global set-up builds it), served by the docs
// server as text, linked from the start page, and complete: every guide and operation, each link of llms.txt a
// Markdown page of the built site (one per guide and per operation) that answers Markdown, no site HTML, none of
// the sample runner's marks and no decision ids, the reference sandbox's guides under its own heading and apart
// from the service's, and no contract-author wording outside the provisional guide.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, operations, type OpenApiDocument } from '@cls-api/spec';
import { LLMS_FULL, LLMS_INDEX, PROVISIONAL_TAG, llmsFiles, startDocs, type DocsServer } from '../src/index.js';
import { SANDBOX_GROUP } from '../src/sandbox-guides.js';
import { docsSpecPath, siteDir } from '../src/paths.js';

const docs = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const contract = loadSpec();
const index = readFileSync(join(siteDir, LLMS_INDEX), 'utf8');
const full = readFileSync(join(siteDir, LLMS_FULL), 'utf8');
type Tag = { name: string; 'x-traitTag'?: boolean };
const guides = ((docs.tags ?? []) as Tag[]).filter((t) => t['x-traitTag'] === true).map((t) => t.name);
const ops = operations(contract);

let server: DocsServer;
beforeAll(async () => {
  server = await startDocs();
});
afterAll(async () => {
  await server?.close();
});

describe('llms.txt and llms-full.txt', () => {
  it('are what the bundle makes: built with the site, not written by hand', () => {
    const made = llmsFiles(contract, docs);
    expect(index).toBe(made.index);
    expect(full).toBe(made.full);
    expect(made.pages.size).toBe(guides.length + ops.length);
    for (const [path, text] of made.pages) expect(readFileSync(join(siteDir, path), 'utf8'), path).toBe(text);
  });

  it('llms.txt follows the format: a title, a summary, then sections of links', () => {
    expect(index).toMatch(/^# .+\n\n> .+\n/);
    expect(index).toContain(`](/${LLMS_FULL})`);
    for (const g of guides) expect(index, g).toMatch(new RegExp(`^- \\[${g.replace(/[()]/g, '\\$&')}\\]\\(/`, 'm'));
    for (const op of ops) expect(index, op.operationId).toContain(`\`${op.method.toUpperCase()} ${op.path}\``);
  });

  it('links a Markdown page of the site for every guide and every operation, and each answers Markdown', async () => {
    const links = [...index.matchAll(/\]\((\/[^)]*)\)/g)].map((m) => m[1]!);
    const pages = links.filter((l) => l.endsWith('.md'));
    expect(pages.length).toBe(guides.length + ops.length);
    expect(links.length).toBe(pages.length + 2);
    for (const link of links) {
      const res = await fetch(new URL(link, server.url));
      const body = await res.text();
      expect(res.status, link).toBe(200);
      if (!link.endsWith('.md')) continue;
      expect(existsSync(join(siteDir, link)), link).toBe(true);
      expect(res.headers.get('content-type'), link).toBe('text/markdown; charset=utf-8');
      expect(body, link).toMatch(/^# \S/);
      expect(body, link).not.toMatch(/<(!DOCTYPE|html|script|a )/i);
    }
    // The operation's page is its part of llms-full.txt.
    const op = ops.find((o) => o.operationId === 'registerDraftOrders')!;
    const page = readFileSync(join(siteDir, pages.find((l) => l.endsWith('/registerdraftorders.md'))!), 'utf8');
    expect(page).toContain(`\`${op.method.toUpperCase()} ${op.path}\` (\`${op.operationId}\`)`);
    expect(full).toContain(page.replace(/^# /, '### ').trim().split('\n').slice(0, 3).join('\n'));
  });

  it("lists the reference sandbox's guides under the sandbox's own heading, apart from the service's, and no heading without a link", () => {
    const sandbox = ((docs['x-tagGroups'] ?? []) as Array<{ name: string; tags: string[] }>).find(
      (g) => g.name === SANDBOX_GROUP,
    );
    expect(sandbox?.tags.length).toBeGreaterThan(0);
    const sections = new Map(
      index
        .split(/^## /m)
        .slice(1)
        .map((part) => [part.split('\n')[0]!, part] as const),
    );
    for (const [heading, text] of sections) expect(text, heading).toMatch(/^- \[/m);
    for (const guide of sandbox!.tags) {
      const link = `- [${guide}](`;
      expect(sections.get(SANDBOX_GROUP), guide).toContain(link);
      expect(sections.get('Guides'), guide).not.toContain(link);
    }
    const serviceGuides = full.slice(full.indexOf('\n# Guides\n'), full.indexOf(`\n# ${SANDBOX_GROUP}\n`));
    const sandboxPart = full.slice(full.indexOf(`\n# ${SANDBOX_GROUP}\n`), full.indexOf('\n# Operations\n'));
    expect(serviceGuides).toContain('\n## Getting started\n');
    for (const guide of sandbox!.tags) {
      expect(sandboxPart, guide).toContain(`\n## ${guide}\n`);
      expect(serviceGuides, guide).not.toContain(`\n## ${guide}\n`);
    }
  });

  it.each([
    ['a mark of the sample runner (<!-- sample: … -->)', /<!--|sample: (setup|expect|prints|not runnable)/g],
    ['a decision id (G21)', /\bG\d{1,3}\b/g],
    ['the decision log', /DECISIONS(\.md)?/g],
  ])('neither file, nor any Markdown page, holds %s', (_, term) => {
    const pages = llmsFiles(contract, docs).pages;
    const count = (text: string) => [...text.matchAll(term)].length;
    expect(count(index)).toBe(0);
    expect(count(full)).toBe(0);
    expect([...pages].filter(([, text]) => count(text) > 0).map(([path]) => path)).toEqual([]);
  });

  it('llms-full.txt holds every guide and every operation in Markdown, without the site HTML', () => {
    for (const g of guides) expect(full, g).toContain(`\n## ${g}\n`);
    for (const op of ops) {
      expect(full, op.operationId).toContain(`\`${op.method.toUpperCase()} ${op.path}\` (\`${op.operationId}\`)`);
    }
    expect(full).toContain('curl -sS');
    expect(full).not.toMatch(/<a |class="/);
    const withoutProvisionalGuide = full.replace(new RegExp(`\\n## ${PROVISIONAL_TAG}\\n[\\s\\S]*?(?=\\n## )`), '\n');
    expect(withoutProvisionalGuide.length).toBeLessThan(full.length);
    for (const term of [/the source/i, /designed/i, /x-limits/i, /provisional: true/i]) {
      expect(withoutProvisionalGuide).not.toMatch(term);
    }
  });

  it('are served as text, and the start page links both', async () => {
    for (const name of [LLMS_INDEX, LLMS_FULL]) {
      const res = await fetch(new URL(name, server.url));
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toMatch(/^# /);
    }
    expect(docs.info.description).toContain(`](/${LLMS_INDEX})`);
    expect(docs.info.description).toContain(`](/${LLMS_FULL})`);
  });
});
