// The "Provisional elements" guide lists every x-provisional element with its reason from spec/DECISIONS.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import {
  forSearch,
  PROVISIONAL_BADGE,
  spacedTableCells,
  unwrapParagraphs,
  PROVISIONAL_TAG,
  docsSpec,
  parseDecisions,
  plainHeadings,
  provisionalElements,
  renderProvisionalList,
  withoutDecisionIds,
} from '../src/index.js';
import { decisionsPath } from '../src/paths.js';

const decisions = readFileSync(decisionsPath, 'utf8');
const doc = loadSpec();
const log = parseDecisions(decisions);

describe('the provisional list', () => {
  it('reads the general decisions and the designed elements of the log', () => {
    expect(log.general.length).toBeGreaterThan(0);
    expect(log.general[0]!.key).toBe('G1');
    for (const d of [...log.general, ...log.elements.values()]) {
      expect(d.decision.length, d.key).toBeGreaterThan(0);
      expect(d.reason.length, d.key).toBeGreaterThan(0);
    }
  });

  it('names every x-provisional element of the bundle with its decision and reason', () => {
    const list = renderProvisionalList(doc, log);
    const elements = provisionalElements(doc);
    expect(elements.length).toBeGreaterThan(0);
    for (const e of elements) {
      const row = list
        .split('\n')
        .find((l) => l.startsWith('| ') && l.includes(e.kind === 'schema' ? `schema \`${e.name}\` |` : `(${e.name})`));
      expect(row, `${e.kind} ${e.name}`).toBeDefined();
      const d = log.elements.get(`${e.kind} ${e.name}`)!;
      // As a reader reads it: the log's ids of other decisions (`(G23)`) left out.
      expect(row).toContain(withoutDecisionIds(d.reason).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim());
    }
    for (const g of log.general) {
      expect(list).toContain(`| ${withoutDecisionIds(g.decision).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()} |`);
    }
    expect(list.match(/\bG\d{1,3}\b/g)).toBeNull();
    expect(list).not.toContain('DECISIONS');
  });

  it('leaves out the ids by which the log rows refer to each other, keeping the sentence', () => {
    expect(withoutDecisionIds('decimal digits only (G23). Its bound')).toBe('decimal digits only. Its bound');
    expect(withoutDecisionIds('are separate data (G20, G21); the token')).toBe('are separate data; the token');
    expect(withoutDecisionIds('`client_id` (`cli_{env}_…`, G21), `client_secret`')).toBe(
      '`client_id` (`cli_{env}_…`), `client_secret`',
    );
  });

  it('fails the build when a marked element has no row in the log', () => {
    const copy = loadSpec();
    copy.components!.schemas!.Pagination!['x-provisional'] = true;
    expect(() => renderProvisionalList(copy, log)).toThrow(/schema Pagination/);
  });

  it('is appended to the guide in the docs copy only; the bundle itself is untouched', () => {
    const before = JSON.stringify(doc);
    const { doc: docs } = docsSpec(doc, decisions);
    expect(JSON.stringify(doc)).toBe(before);
    const tag = (docs.tags as Array<{ name: string; description: string }>).find((t) => t.name === PROVISIONAL_TAG)!;
    expect(tag.description).toContain('## Every provisional element');
    const original = (doc.tags as Array<{ name: string; description: string }>).find(
      (t) => t.name === PROVISIONAL_TAG,
    )!;
    expect(tag.description.startsWith(forSearch(plainHeadings(original.description)).trimEnd())).toBe(true);
  });
});

describe('text for the search', () => {
  it('puts each paragraph and list item on one line, and leaves code, tables and headings as they are', () => {
    const md =
      '## Title\nfirst line\nsecond line\n\n- item\n  goes on\n- next\n\n```bash\na\nb\n```\n| a | b |\n|---|---|\n';
    expect(unwrapParagraphs(md)).toBe(
      '## Title\nfirst line second line\n\n- item goes on\n- next\n\n```bash\na\nb\n```\n| a | b |\n|---|---|\n',
    );
  });

  it('ends every table cell with a space the search keeps, and leaves the separator row alone', () => {
    expect(spacedTableCells('| Limit | Scope |\n|---|:--|\n| a `x\\|y` | b |')).toBe(
      '| Limit&#32; | Scope&#32; |\n|---|:--|\n| a `x\\|y`&#32; | b&#32; |',
    );
  });
});

describe('plainHeadings', () => {
  it('drops code spans from headings only (Redoc 3 cuts them from the sidebar)', () => {
    expect(plainHeadings('## Branch on `error.code`\nUse `error.code` here.')).toBe(
      '## Branch on error.code\nUse `error.code` here.',
    );
  });
});

describe('the provisional badge', () => {
  const { doc: docs } = docsSpec(doc, decisions);
  const marked: Array<{ at: string; description: unknown }> = [];
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${at}/${i}`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    const node = value as Record<string, unknown>;
    if (node['x-provisional'] === true) marked.push({ at, description: node.description });
    for (const [k, v] of Object.entries(node)) if (k !== 'examples' && k !== 'example') walk(v, `${at}/${k}`);
  };
  walk(docs.paths, '#/paths');
  walk(docs.components, '#/components');

  it('starts the description of every provisional element, once', () => {
    expect(marked.length).toBeGreaterThan(provisionalElements(doc).length - 1);
    const wrong = marked.filter(
      (m) =>
        typeof m.description !== 'string' ||
        !m.description.startsWith(PROVISIONAL_BADGE) ||
        m.description.split(PROVISIONAL_BADGE).length !== 2,
    );
    expect(wrong.map((w) => w.at)).toEqual([]);
  });

  it('links to the "Provisional elements" guide and stays out of the bundle itself', () => {
    expect(PROVISIONAL_BADGE).toMatch(/href="\/provisional-elements"/);
    expect(JSON.stringify(doc)).not.toContain('cls-provisional');
  });
});
