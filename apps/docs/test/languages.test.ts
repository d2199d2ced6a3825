// The Python, Java, Go and PHP samples of every operation page (src/samples.ts, written by httpsnippet), as the site
// shows them, each checked by its language's own tool: `python3 -m py_compile`, `javac`, `gofmt -l -e` and
// `php -l`. The set-up installs a missing checker from Debian's packages, as the other test servers are installed.
// The curl and TypeScript samples run against the sandbox (test/operation-samples.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, operations, type OpenApiDocument } from '@cls-api/spec';
import { type DebianPackage, ensureDebianPackages } from '@cls-api/test-servers';
import { type CodeSample, SAMPLE_LABELS, type SampleFile, samplesOf } from '../src/samples.js';
import { docsSpecPath } from '../src/paths.js';

const contract = loadSpec();
const docs = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const ops = operations(contract);

const CHECKERS = {
  python: ['python3-minimal', '/usr/bin/python3'],
  java: ['openjdk-17-jdk-headless', '/usr/bin/javac'],
  go: ['golang-go', '/usr/bin/gofmt'],
  php: ['php-cli', '/usr/bin/php'],
} as const satisfies Record<string, DebianPackage>;
type Lang = keyof typeof CHECKERS;

let dir: string;
/** Why the checkers could not be installed, when they could not. */
let missing: string | undefined;
const files = new Map<Lang, string[]>();

beforeAll(async () => {
  try {
    await ensureDebianPackages(Object.values(CHECKERS), (line) => console.log(`[checkers] ${line}`));
  } catch (error) {
    missing = `a checker could not be installed from Debian's packages: ${(error as Error).message}`;
  }
  dir = mkdtempSync(join(tmpdir(), 'cls-docs-languages-'));
  for (const op of ops) {
    const { otherFiles, codeSamples } = samplesOf(contract, op);
    const shown = docs.paths![op.path]![op.method]!['x-codeSamples'] as CodeSample[];
    otherFiles.forEach((file: SampleFile, i) => {
      const sample = codeSamples[i + 2]!;
      // The file checked is the sample the page shows.
      expect(shown.find((s) => s.label === sample.label)?.source, `${op.operationId} ${sample.label}`).toBe(
        file.source,
      );
      const lang = (Object.keys(SAMPLE_LABELS) as Array<keyof typeof SAMPLE_LABELS>).find(
        (k) => SAMPLE_LABELS[k] === sample.label,
      ) as Lang;
      const path = join(dir, lang, file.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.source);
      files.set(lang, [...(files.get(lang) ?? []), path]);
    });
  }
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function check(command: string, args: string[], cwd = dir): { status: number | null; output: string } {
  const res = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, GOFLAGS: '' } });
  return { status: res.status, output: `${res.stdout}${res.stderr}${res.error ? String(res.error) : ''}` };
}

describe('samples in Python, Java, Go and PHP', () => {
  it('every operation has one of each, read from the environment as the curl sample is', () => {
    for (const lang of Object.keys(CHECKERS) as Lang[]) {
      expect(files.get(lang)?.length, lang).toBe(ops.length);
      for (const path of files.get(lang)!) {
        const source = readFileSync(path, 'utf8');
        expect(source, path).toContain('CLS_BASE_URL');
        expect(source, path).not.toMatch(/__CLS_|cls-base-url\.invalid/);
      }
    }
  });

  it('Python: python3 -m py_compile', (ctx) => {
    if (missing) ctx.skip(missing);
    const res = check(CHECKERS.python[1], ['-m', 'py_compile', ...files.get('python')!]);
    expect(res.output).toBe('');
    expect(res.status).toBe(0);
  });

  it('Java: javac', (ctx) => {
    if (missing) ctx.skip(missing);
    const res = check(CHECKERS.java[1], ['-d', join(dir, 'java-classes'), ...files.get('java')!]);
    expect(res.output).toBe('');
    expect(res.status).toBe(0);
  });

  it('Go: gofmt finds no syntax error and nothing to reformat', (ctx) => {
    if (missing) ctx.skip(missing);
    const res = check(CHECKERS.go[1], ['-l', '-e', join(dir, 'go')]);
    expect(res.output).toBe('');
    expect(res.status).toBe(0);
  });

  it('PHP: php -l', (ctx) => {
    if (missing) ctx.skip(missing);
    const failures = files
      .get('php')!
      .map((path) => ({ path, ...check(CHECKERS.php[1], ['-l', path]) }))
      .filter((r) => r.status !== 0);
    expect(failures).toEqual([]);
  });

  it('a syntax error is caught by each checker', (ctx) => {
    if (missing) ctx.skip(missing);
    const broken = join(dir, 'broken');
    mkdirSync(join(broken, 'go'), { recursive: true });
    writeFileSync(join(broken, 'a.py'), 'url = os.environ["X"] +\n');
    writeFileSync(join(broken, 'A.java'), 'public class A { void f() { int x = ; } }\n');
    writeFileSync(join(broken, 'go', 'main.go'), 'package main\nfunc main() { x := }\n');
    writeFileSync(join(broken, 'a.php'), "<?php\n$x = getenv('X') .;\n");
    expect(check(CHECKERS.python[1], ['-m', 'py_compile', join(broken, 'a.py')]).status).not.toBe(0);
    expect(check(CHECKERS.java[1], ['-d', broken, join(broken, 'A.java')]).status).not.toBe(0);
    expect(check(CHECKERS.go[1], ['-l', '-e', join(broken, 'go')]).status).not.toBe(0);
    expect(check(CHECKERS.php[1], ['-l', join(broken, 'a.php')]).status).not.toBe(0);
  });
});
