// The kit's source keeps its shape: src/ holds the two entry points the package exports and one folder per step of
// a run (README, "How the kit is built"), and no class grows past 200 lines: one that does has taken on a second job,
// which goes to a collaborator of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const pkgDir = join(import.meta.dirname, '..');
const src = join(pkgDir, 'src');

/** The files src/ may hold at its root: the package's entry points (`exports` and, through it, `bin`). */
const ROOT_FILES = ['cli.ts', 'index.ts'];
/** The folders of src/, in the order a run goes through them. */
const FOLDERS = ['contract', 'matrix', 'plan', 'run', 'phases', 'report'];
const MAX_CLASS_LINES = 200;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every class of a file with its length, from the line of `class X {` to the line of its closing brace. */
function classesOf(file: string, text: string): Array<{ name: string; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ name: string; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      // getStart() skips the doc comment above the class: only the class itself is counted.
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: node.name?.text ?? '(anonymous)', lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the kit's source", () => {
  test('src/ holds the entry points and the folders of a run, nothing else', () => {
    const entries = readdirSync(src, { withFileTypes: true });
    expect(
      entries
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort(),
    ).toEqual([...ROOT_FILES].sort());
    expect(
      entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort(),
    ).toEqual([...FOLDERS].sort());
  });

  test("the package's exports and commands are built from the entry points at the root", () => {
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    const built = Object.values(manifest.exports)
      .flatMap((target) => (typeof target === 'string' ? [target] : [target.types, target.default]))
      .filter((target) => target.startsWith('./dist/'));
    const entries = [
      ...new Set(built.map((target) => target.replace(/^\.\/dist\//, '').replace(/\.(d\.ts|js)$/, '.ts'))),
    ];
    expect(entries.sort()).toEqual([...ROOT_FILES].sort());
  });

  test(`no class is longer than ${MAX_CLASS_LINES} lines`, () => {
    const classes = sourceFiles(src).flatMap((file) =>
      classesOf(file, readFileSync(file, 'utf8')).map((c) => ({ ...c, file: relative(pkgDir, file) })),
    );
    expect(classes.length).toBeGreaterThan(10);
    const long = classes.filter((c) => c.lines > MAX_CLASS_LINES).map((c) => `${c.file}: ${c.name}, ${c.lines} lines`);
    expect(long).toEqual([]);
  });

  test('a class is counted from its declaration to its closing brace, its doc comment left out', () => {
    const methods = Array.from({ length: 5 }, (_, i) => `  m${i}(): number {\n    return ${i};\n  }`).join('\n');
    const text = `/**\n * Not counted.\n */\nexport class Sample {\n${methods}\n}\n`;
    // 1 line for `class Sample {`, 15 for the five methods, 1 for the closing brace.
    expect(classesOf('sample.ts', text)).toEqual([{ name: 'Sample', lines: 17 }]);
  });
});
