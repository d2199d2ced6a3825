// ARCHITECTURE.md at the repository root maps every rule of the service to the files that hold it: each path it
// names must exist, and each check, plugin or function its rule table names must be declared in the file named beside
// it, so the map cannot go stale when a file moves or a check changes its home.
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

  it('names, in every part of every rule, what that file declares', () => {
    const missing: string[] = [];
    let named = 0;
    for (const cells of ruleRows()) {
      // Server, client, kit check: `name`, `name` in `file`, groups apart by `;`, or — where the part has nothing to do.
      for (const cell of cells.slice(2, 5)) {
        if (cell === '—') continue;
        for (const group of cell.split(';')) {
          const at = group.lastIndexOf(' in ');
          const file = at < 0 ? undefined : /`([^`]+)`/.exec(group.slice(at))?.[1];
          const names = at < 0 ? [] : [...group.slice(0, at).matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
          if (!file || names.length === 0) {
            missing.push(`${cells[0]}: "${group.trim()}" names no check or function in a file`);
            continue;
          }
          const code = codeOf(resolve(root, file));
          for (const name of names) {
            named += 1;
            if (!declares(code, name)) missing.push(`${cells[0]}: ${name} is not declared in ${file}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
    expect(named).toBeGreaterThanOrEqual(50);
  });

  it('tells a name that is declared from one that is only mentioned', () => {
    const code = ['no-match-is-empty.ts', 'return-cancel-expired.ts']
      .map((file) => codeOf(resolve(root, 'packages/contract-tests/src/phases/codes', file)))
      .join('\n');
    expect(declares(code, 'workflows/codes/no_match_is_empty/listDeposits')).toBe(true);
    expect(declares(code, 'workflows/codes/RETURN_CANCEL_EXPIRED/*')).toBe(true);
    // A check the file never runs, a function it only calls, a name it only mentions in a comment.
    expect(declares(code, 'seller_isolation')).toBe(false);
    expect(declares(code, 'contractModel')).toBe(false);
    expect(declares(code, 'RETURN_CANCEL_EXPIRED/listDeposits')).toBe(false);
    const examples = codeOf(resolve(root, 'packages/contract-tests/src/phases/examples.ts'));
    expect(declares(examples, 'expected_outcome')).toBe(false);
  });
});

/** The rule table's rows, each cut into its six cells. */
function ruleRows(): string[][] {
  const rules = text.slice(text.indexOf('## Where each rule of the service lives'));
  return rules
    .split('\n')
    .filter((l) => /^\| [^-|]/.test(l) && !l.startsWith('| Rule |'))
    .map((row) =>
      row
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

/** A file's code without its comment lines (a name a comment mentions is not declared by it). */
function codeOf(path: string): string {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `code` declares `name`: a function, class, constant, variable, interface or type of that name, or, for a
 * check, the name as a whole string (`'bulk_counts'`, a check's `name:` or the `check:` of a finding) or as the end
 * of a case id (`id: 'workflows/seller_isolation'`). A `*` in a case id stands for one part the code fills in
 * (`negative/*\/missing_credential` for `` `negative/${op.operationId}/missing_credential` ``).
 */
function declares(code: string, name: string): boolean {
  if (/^[A-Za-z_$][\w$]*$/.test(name)) {
    const declaration = new RegExp(`\\b(function\\*?|class|const|let|var|interface|type)\\s+${literal(name)}\\b`);
    const field = new RegExp(`^\\s*(readonly\\s+)?${literal(name)}\\??:`, 'm');
    if (declaration.test(code) || field.test(code)) return true;
  }
  const body = name.split('*').map(literal).join('(?:\\$\\{[^}]+\\}|[^/\'"`\\s]+)');
  return new RegExp(`['"\`](?:[^'"\`\\n]*/)?${body}['"\`]`).test(code);
}
