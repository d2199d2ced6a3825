// A guide that sends the reader to another guide links to it, in path form (`/rate-limits-and-quotas`), so the
// reader can follow it; the browser test (layout.test.ts) then checks that every such link resolves and lands at
// its section. Bold text naming a guide is a reference a reader cannot follow.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';

const doc = loadSpec();
type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
const tags = (doc.tags ?? []) as Tag[];
const guides = tags.filter((t) => t['x-traitTag'] === true);
/** Redoc's page path of a tag: its name in lower case, dashes between words. */
const pathOf = (name: string) =>
  `/${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;
const texts = [
  ['the introduction', String(doc.info.description ?? '')],
  ...guides.map((g) => [g.name, g.description ?? ''] as const),
] as const;

describe('cross-references between guides', () => {
  it.each(texts)('%s names other guides by links, not bold text', (_, text) => {
    const bold = guides.map((g) => `**${g.name}**`).filter((b) => text.includes(b));
    expect(bold).toEqual([]);
  });

  it.each(texts)('%s links only to pages the site has', (_, text) => {
    const pages = new Set(tags.map((t) => pathOf(t.name)));
    const links = [...text.matchAll(/\]\((\/[^)#\s]*)/g)].map((m) => m[1]!);
    for (const link of links) expect(pages.has(link.split('/').slice(0, 2).join('/')), link).toBe(true);
  });

  it('the guides do link to each other', () => {
    const linked = texts.flatMap(([, text]) => [...text.matchAll(/\]\((\/[a-z0-9-]+)\)/g)].map((m) => m[1]!));
    expect(new Set(linked).size).toBeGreaterThan(5);
  });
});
