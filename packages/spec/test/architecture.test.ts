// ARCHITECTURE.md at the repository root maps every rule of the service to the files that hold it: each path it
// names must exist, so the map cannot go stale when a file moves.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const text = readFileSync(resolve(root, 'ARCHITECTURE.md'), 'utf8');

/** Every backticked repository path: it starts with one of the top-level folders and names a file or folder. */
function pathsIn(markdown: string): string[] {
  const found = new Set<string>();
  for (const m of markdown.matchAll(/`((?:spec|packages|apps|scripts)\/[^`\s]+)`/g)) found.add(m[1]!);
  return [...found];
}

describe('ARCHITECTURE.md', () => {
  it('names only paths that exist', () => {
    const paths = pathsIn(text);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !existsSync(resolve(root, p)))).toEqual([]);
  });

  it('has a row for each rule with a spec file, and every row names its files', () => {
    const rules = text.slice(text.indexOf('## Where each rule of the service lives'));
    const rows = rules.split('\n').filter((l) => /^\| [^-|]/.test(l) && !l.startsWith('| Rule |'));
    expect(rows.length).toBeGreaterThanOrEqual(18);
    for (const row of rows) {
      const cells = row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      expect(cells, row).toHaveLength(6);
      expect(cells[1], `${cells[0]}: the spec file`).toMatch(/^`spec\//);
      expect(pathsIn(row).length, `${cells[0]}: no file named`).toBeGreaterThanOrEqual(3);
    }
  });
});
