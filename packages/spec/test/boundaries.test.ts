// The import boundaries `pnpm lint` checks (.dependency-cruiser.mjs at the repository root, ARCHITECTURE.md "What may
// import what"), run on a copy of the workspace's manifests with imports planted in it: each planted crossing is
// refused by its rule, and each allowed one passes.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Writes `text` at `path` under `dir`, making its folders. */
function put(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

describe('the boundary linter', () => {
  let dir: string;
  let violations: Violation[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cls-boundaries-'));
    cpSync(join(root, '.dependency-cruiser.mjs'), join(dir, '.dependency-cruiser.mjs'));
    cpSync(join(root, 'tsconfig.base.json'), join(dir, 'tsconfig.base.json'));
    // Every app and package of the workspace, by its manifest: the rules are made from them.
    for (const group of ['apps', 'packages'])
      for (const name of readdirSync(join(root, group)))
        cpSync(join(root, group, name, 'package.json'), join(dir, group, name, 'package.json'));
    // The reference is built (its exports resolve); the mock is not (an import of it is seen by name, as written).
    for (const file of ['index.js', 'index.d.ts', 'cli.js', 'cli.d.ts']) put(dir, `apps/reference/dist/${file}`, '');
    put(dir, 'packages/spec/src/model.ts', 'export const model = 1;\n');
    // pnpm's links: each importer's node_modules/@cls-api/<name> points at the package's folder.
    const link = (importer: string, target: string) => {
      const at = join(dir, importer, 'node_modules', '@cls-api', target.split('/')[1]!);
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(join(dir, target), at);
    };
    link('apps/e2e', 'apps/reference');
    link('apps/bench', 'apps/reference');
    link('apps/bench', 'apps/e2e');
    link('apps/docs', 'apps/mock');
    link('packages/spec', 'apps/mock');
    link('packages/client', 'apps/mock');

    put(dir, 'apps/e2e/src/uses-reference.ts', "import '@cls-api/reference';\n");
    put(dir, 'apps/docs/src/uses-mock.ts', "import '@cls-api/mock';\n");
    put(dir, 'apps/bench/src/measures-reference.ts', "import '@cls-api/reference';\n");
    put(dir, 'apps/bench/src/deep.ts', "import '@cls-api/reference/dist/cli.js';\n");
    put(dir, 'apps/bench/src/uses-e2e.ts', "import '@cls-api/e2e';\n");
    put(dir, 'packages/spec/src/uses-mock.ts', "import '@cls-api/mock';\n");
    put(dir, 'packages/client/test/mock.test.ts', "import '@cls-api/mock';\n");
    put(dir, 'packages/client/src/relative.ts', "import '../../spec/src/model.js';\n");
    put(dir, 'scripts/start.mjs', "import '../apps/reference/dist/cli.js';\n");
    // The same reaches from a package's tests and a script, to a built app (resolved) and to one not built yet (as in a
    // fresh clone, where \`pnpm lint\` runs before any build): neither resolves through exports.
    put(dir, 'packages/contract-tests/test/support/reference.ts', "import '../../../../apps/reference/dist/cli.js';\n");
    put(dir, 'packages/contract-tests/test/support/apps.ts', "await import('../../../../apps/mock/dist/index.js');\n");
    put(dir, 'packages/client/src/unbuilt.ts', "import '../../spec/dist/index.js';\n");
    put(dir, 'scripts/mock.mjs', "import '../apps/mock/dist/cli.js';\n");

    const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
    const run = spawnSync(depcruise, ['apps', 'packages', 'scripts', '--output-type', 'json'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (!run.stdout) throw new Error(`depcruise printed nothing (exit ${run.status}): ${run.stderr}`);
    violations = (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const found = (from: string) =>
    violations
      .filter((v) => v.from === from)
      .map((v) => v.rule.name)
      .sort();

  it('refuses an app importing another app, built or not', () => {
    expect(found('apps/e2e/src/uses-reference.ts')).toEqual(['app-imports-app']);
    expect(found('apps/docs/src/uses-mock.ts')).toEqual(['app-imports-app']);
  });

  it('lets the benchmark harness start an app through its exports, never by its dist/ path', () => {
    expect(found('apps/bench/src/measures-reference.ts')).toEqual([]);
    expect(found('apps/bench/src/deep.ts')).toEqual(['package-subpath-into-dist-or-src']);
  });

  it('refuses importing a package that declares no exports map', () => {
    expect(found('apps/bench/src/uses-e2e.ts')).toEqual(['package-without-exports']);
  });

  it("refuses a package's code reaching into an app, and lets its tests start one through its exports", () => {
    expect(found('packages/spec/src/uses-mock.ts')).toEqual(['package-reaches-into-app']);
    expect(found('packages/client/test/mock.test.ts')).toEqual([]);
  });

  it("refuses a relative path into another package's files, from a package or a script", () => {
    expect(found('packages/client/src/relative.ts')).toEqual(['relative-path-into-another-package']);
    expect(found('scripts/start.mjs')).toEqual(['script-path-into-a-package']);
    expect(found('packages/contract-tests/test/support/reference.ts')).toEqual(['relative-path-into-another-package']);
  });

  it("refuses a relative path into another package's dist/ or src/ before it is built", () => {
    expect(found('packages/contract-tests/test/support/apps.ts')).toEqual(['relative-path-into-unbuilt-dist-or-src']);
    expect(found('packages/client/src/unbuilt.ts')).toEqual(['relative-path-into-unbuilt-dist-or-src']);
    expect(found('scripts/mock.mjs')).toEqual(['relative-path-into-unbuilt-dist-or-src']);
  });
});
