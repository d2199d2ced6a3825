// Every code block of every package README (and the repository's): a shell, JavaScript or TypeScript block is
// compiled with the repository's strict settings (JavaScript through checkJs) and run, twice, with the local
// sandbox's variables (spec/guides/getting-started.md), from a directory inside the README's own package, so the
// package's name resolves as it does for a reader who depends on it. A block that cannot run says so, with the
// reason, in a mark before it (`<!-- sample: not runnable: … -->`, src/code-blocks.ts). Other blocks (JSON, YAML,
// HTTP, text) are shown output or configuration, not samples.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, type CodeBlock } from '../src/code-blocks.js';
import { compileTypeScriptIn, resetShell, runShell, runTypeScript, type SampleRun } from './run-samples.js';
import { useSandbox } from './sandbox.js';
import { mkdirSync, rmSync } from 'node:fs';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');

/**
 * Blocks of READMEs this package does not own that fail as written today, by README and the block's first line, with
 * why. Each is reported to the README's owners; none is marked away in the README. While listed, the test expects
 * the block to fail, so the fix of the README also removes its entry; an entry whose block has changed matches
 * nothing and is left over to delete.
 */
const KNOWN_FAILING: Record<string, string> = {};

/**
 * Blocks not run here, with why: running them would reach beyond this machine (npx of a package not yet on the
 * registry fetches from it), or they need a server another test starts, and that test runs them.
 */
const NOT_RUN_HERE: Record<string, string> = {
  'packages/client/README.md: // example.mjs: against the mock (`pnpm mock` at the repository root)':
    'the mock at its fixed port 4010 with a mock key: packages/client/test/packaging.test.ts runs it against the mock, apps/release/test/registry.test.ts against the reference server',
  'packages/contract-tests/README.md: export CLS_API_KEYS="wms_test_…,manager_test_…,cam_test_…"     # your test keys, one per area':
    'runs npx @cls-api/contract-tests, which fetches the kit from the npm registry until it is released',
};

const readmes = [
  'README.md',
  'spec/README.md',
  ...['packages', 'apps'].flatMap((dir) =>
    readdirSync(join(repoRoot, dir))
      .map((name) => join(dir, name, 'README.md'))
      .filter((p) => existsSync(join(repoRoot, p))),
  ),
];

interface ReadmeSample {
  readme: string;
  block: CodeBlock;
  key: string;
}

const samples: ReadmeSample[] = readmes.flatMap((readme) =>
  codeBlocks(readFileSync(join(repoRoot, readme), 'utf8'))
    .filter((block) => block.language !== 'other' || /^(js|javascript|mjs)$/i.test(block.info))
    .map((block) => ({ readme, block, key: `${readme}: ${block.source.split('\n')[0]!.trim()}` })),
);
const isJs = (b: CodeBlock) => /^(js|javascript|mjs)$/i.test(b.info);
const runnable = samples.filter(
  (s) => s.block.mark.kind !== 'not-runnable' && s.block.mark.kind !== 'setup' && !NOT_RUN_HERE[s.key],
);

/** The package directory a README belongs to (the repository root for its own README). */
const packageOf = (readme: string) => resolve(repoRoot, readme, '..');
function workDirIn(readme: string): string {
  const dir = join(packageOf(readme), 'reports', 'readme-samples');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}
const fileName = (s: ReadmeSample) => `line-${s.block.line}.${isJs(s.block) ? 'mjs' : 'ts'}`;

const sandbox = useSandbox();

describe('the READMEs', () => {
  it.each(Object.entries(NOT_RUN_HERE))('not run here: %s (%s)', (key) => {
    expect(samples.map((s) => s.key)).toContain(key);
  });

  it('hold samples, and every block that is not run says why', () => {
    expect(samples.length).toBeGreaterThan(10);
    for (const s of samples.filter((x) => x.block.mark.kind === 'not-runnable')) {
      const mark = s.block.mark as { reason: string };
      expect(mark.reason.length, s.key).toBeGreaterThan(10);
    }
  });
});

const isCode = (s: ReadmeSample) => s.block.language === 'typescript' || isJs(s.block);
const readmesRun = [...new Set(runnable.map((s) => s.readme))];
/** Each README's working directory, and its compiler diagnostics: every README compiled in one compiler run. */
const dirs = new Map<string, string>();
let diagnosticsOf = new Map<string, string>();
beforeAll(() => {
  for (const readme of readmesRun) dirs.set(readme, workDirIn(readme));
  const projects = readmesRun.map((readme) => ({
    dir: dirs.get(readme)!,
    files: Object.fromEntries(
      runnable.filter((s) => s.readme === readme && isCode(s)).map((s) => [fileName(s), s.block.source]),
    ),
  }));
  // A README of shell samples only has nothing to compile.
  diagnosticsOf = compileTypeScriptIn(projects.filter((p) => Object.keys(p.files).length > 0));
}, 300_000);

describe.each(readmesRun.map((readme) => [readme] as const))('%s', (readme) => {
  const mine = runnable.filter((s) => s.readme === readme);
  let dir: string;
  let diagnostics = '';
  beforeAll(() => {
    dir = dirs.get(readme)!;
    diagnostics = diagnosticsOf.get(resolve(dir)) ?? '';
  });

  it.each(mine.map((s) => [s.key, s] as const))('%s: compiles strictly and runs, twice', (key, s) => {
    const results: SampleRun[] = [];
    for (let run = 1; run <= 2; run++) {
      if (s.block.language === 'shell') {
        if (run === 1) resetShell(dir);
        results.push(runShell(s.block, dir, sandbox().env));
      } else {
        const own = diagnostics
          .split('\n')
          .filter((l) => l.startsWith(fileName(s)))
          .join('\n');
        results.push(
          own
            ? { ok: false, problem: `does not compile:\n${own}`, output: '' }
            : runTypeScript(s.block, dir, fileName(s), sandbox().env),
        );
      }
    }
    const failed = results.find((r) => !r.ok);
    const where = `${relative(repoRoot, join(repoRoot, readme))} line ${s.block.line}`;
    if (KNOWN_FAILING[key]) {
      expect(failed, `${where} passes now: remove it from KNOWN_FAILING`).toBeDefined();
      return;
    }
    expect(failed, `${where}: ${failed?.problem}\n${failed?.output}`).toBeUndefined();
  });
});
