// The words the site shows a reader, read from the docs copy of the contract (every description, summary and title,
// as generated for the site; no browser): what the service does and what may still change, never the contract's
// authors at work. Decision ids, the decision log and sentences about "the service's own description" belong to
// spec/DECISIONS.md, and reach no page, the "Provisional elements" guide included, which lists the decisions (with
// their reasons, which may say what "the source" shows: that guide alone may); an extension is
// said in words, not shown as Redoc's raw label; and no code span starts or ends with a space, which a browser
// folds into the text around it (` 10` reads as `10`).
import { readFileSync } from 'node:fs';
import { loadSpec, operations } from '@cls-api/spec';
import { describe, expect, it } from 'vitest';
import { docsSpec, mcpToolNote, PROVISIONAL_TAG, readSpecChangelog } from '../src/index.js';
import { decisionsPath, redoclyConfigPath } from '../src/paths.js';

const contract = loadSpec();
const { doc } = docsSpec(contract, readFileSync(decisionsPath, 'utf8'), readSpecChangelog());

/** Every text a page shows, with where it is; the provisional guide's own description left out when asked. */
function shownTexts(withProvisionalGuide: boolean): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) visit(child, `${where}/${i}`);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (!withProvisionalGuide && record.name === PROVISIONAL_TAG && record['x-traitTag'] === true) return;
    for (const [key, value] of Object.entries(record)) {
      if (key === 'x-codeSamples' || key === 'examples' || key === 'example') continue;
      if (['description', 'summary', 'title'].includes(key) && typeof value === 'string') {
        out.push([`${where}/${key}`, value]);
      } else {
        visit(value, `${where}/${key}`);
      }
    }
  };
  visit(doc, '');
  return out;
}

/** The authors' terms the issue found on the site, each counted over every shown text (the last but in one guide). */
const AUTHOR_TERMS: ReadonlyArray<[string, RegExp, boolean]> = [
  ["the service's own description", /service's own\s+description/gi, true],
  ['a decision id (G21)', /\bG\d{1,3}\b/g, true],
  ['the decision log', /DECISIONS(\.md)?/g, true],
  ['the source', /\bthe source\b/gi, false],
];

describe('the text a reader meets', () => {
  const texts = shownTexts(false);

  it('reads the whole docs copy: the guides, the operations and the components', () => {
    expect(texts.length).toBeGreaterThan(200);
    expect(texts.some(([where]) => where.startsWith('/tags/'))).toBe(true);
    expect(texts.some(([where]) => where.startsWith('/paths/'))).toBe(true);
    expect(texts.some(([where]) => where.startsWith('/components/'))).toBe(true);
  });

  it.each(AUTHOR_TERMS)('never names %s', (_, term, everywhere) => {
    const found = shownTexts(everywhere).flatMap(([where, text]) =>
      [...text.matchAll(term)].map((m) => `${where}: …${m[0]}…`),
    );
    expect(found).toEqual([]);
  });

  it('has no code span that starts or ends with a space, which the page would not show', () => {
    const found = texts.flatMap(([where, text]) =>
      [...text.matchAll(/`([^`\n]+)`/g)].filter((m) => /^\s|\s$/.test(m[1]!)).map((m) => `${where}: ${m[0]}`),
    );
    expect(found).toEqual([]);
    // The invalid page and size with a leading space are still there, in a form the page shows.
    expect((doc.components!.parameters!.Size as { description?: string }).description).toContain(
      "`' 10'` (with a leading space)",
    );
  });

  it('says in words which MCP tool an operation is, where Redoc would print the raw `mcp-tool:` label', () => {
    const config = readFileSync(redoclyConfigPath, 'utf8');
    expect(config).not.toMatch(/^\s*- x-mcp-tool\s*$/m);
    const tools = operations(contract).filter((op) => op.mcpTool !== undefined);
    expect(tools.length).toBeGreaterThan(0);
    for (const op of tools) {
      expect(doc.paths![op.path]![op.method]!.description, op.operationId).toContain(mcpToolNote(op.mcpTool!));
    }
  });
});
