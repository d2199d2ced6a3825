// llms.txt and llms-full.txt: built with the site from the bundle (the global set-up builds it), served by the docs
// server as text, linked from the start page, and complete: every guide and operation, each link resolving, no
// site HTML and no contract-author wording outside the provisional guide.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, operations, type OpenApiDocument } from '@cls-api/spec';
import { LLMS_FULL, LLMS_INDEX, PROVISIONAL_TAG, llmsFiles, startDocs, type DocsServer } from '../src/index.js';
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
  });

  it('llms.txt follows the format: a title, a summary, then sections of links', () => {
    expect(index).toMatch(/^# .+\n\n> .+\n/);
    expect(index).toContain(`](/${LLMS_FULL})`);
    for (const g of guides) expect(index, g).toMatch(new RegExp(`^- \\[${g.replace(/[()]/g, '\\$&')}\\]\\(/`, 'm'));
    for (const op of ops) expect(index, op.operationId).toContain(`\`${op.method.toUpperCase()} ${op.path}\``);
  });

  it('every link of llms.txt opens on the site', async () => {
    const links = [...index.matchAll(/\]\((\/[^)]*)\)/g)].map((m) => m[1]!);
    expect(links.length).toBe(guides.length + ops.length + 2);
    for (const link of links) {
      const res = await fetch(new URL(link, server.url));
      expect(res.status, link).toBe(200);
      await res.arrayBuffer();
    }
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
