// The import boundaries `pnpm lint` checks (.dependency-cruiser.mjs at the repository root, ARCHITECTURE.md "What may
// import what"), run on a copy of the workspace's manifests with imports planted in it: each planted crossing is
// refused by its rule, and each allowed one passes.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
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
    // A workspace package in a node_modules folder above a package (the root's, were it to list them) resolves from
    // every folder below it (Node looks upwards): the client and the test servers, built, resolve there for a package
    // that does not declare them.
    for (const target of ['packages/client', 'packages/test-servers']) {
      const at = join(dir, 'node_modules', '@cls-api', target.split('/')[1]!);
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(join(dir, target), at);
    }
    for (const file of ['index.js', 'index.d.ts']) {
      put(dir, `packages/client/dist/src/${file}`, '');
      put(dir, `packages/test-servers/dist/${file}`, '');
    }

    put(dir, 'apps/e2e/src/uses-reference.ts', "import '@cls-api/reference';\n");
    put(dir, 'apps/docs/src/uses-bench.ts', "import '@cls-api/bench';\n");
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
    // Imports by name that resolve (through the node_modules above) or not (unbuilt), of packages the importer's
    // package.json does not declare, or declares for its development only.
    put(dir, 'packages/spec/src/uses-client.ts', "import '@cls-api/client';\n");
    put(dir, 'packages/spec/test/uses-client.test.ts', "import '@cls-api/client';\n");
    put(dir, 'packages/server/src/uses-test-servers.ts', "import '@cls-api/test-servers';\n");
    put(dir, 'packages/server/test/uses-test-servers.test.ts', "import '@cls-api/test-servers';\n");
    put(dir, 'packages/contract-tests/src/uses-server.ts', "import '@cls-api/server';\n");
    // The kit's tests start servers through the private test servers, declared for development only.
    put(dir, 'packages/contract-tests/src/uses-test-servers.ts', "import '@cls-api/test-servers';\n");
    put(dir, 'packages/contract-tests/test/uses-test-servers.test.ts', "import '@cls-api/test-servers';\n");
    put(dir, 'packages/client/src/uses-spec.ts', "import '@cls-api/spec';\n");
    put(dir, 'packages/client/test/uses-spec.test.ts', "import '@cls-api/spec';\n");
    put(dir, 'packages/contract-tests/src/uses-client.ts', "import '@cls-api/client';\n");
    // Import cycles: one in a package closed by a lazy import(), one among the repository's scripts, one of types only.
    put(dir, 'apps/mock/src/cycle-a.ts', "import { b } from './cycle-b.js';\nexport const a = () => b();\n");
    put(dir, 'apps/mock/src/cycle-b.ts', "export const b = async () => (await import('./cycle-a.js')).a;\n");
    put(dir, 'scripts/cycle-a.mjs', "import './cycle-b.mjs';\n");
    put(dir, 'scripts/cycle-b.mjs', "import './cycle-a.mjs';\n");
    put(dir, 'packages/client/src/cycle-a.ts', "import type { B } from './cycle-b.js';\nexport type A = B[];\n");
    put(dir, 'packages/client/src/cycle-b.ts', "import type { A } from './cycle-a.js';\nexport type B = A | 1;\n");
    put(dir, 'packages/client/src/no-cycle.ts', "import type { A } from './cycle-a.js';\nexport type C = A;\n");

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

  it('is what pnpm lint runs: the same folders, the same configuration at the root', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.lint).toMatch(/\bturbo run\b.*\blint:repo\b/);
    expect(scripts['lint:repo']).toMatch(/&& depcruise apps packages scripts --output-type err$/);
  });

  it('refuses an import cycle, closed by a lazy import(), in a script or of types only; a module that only joins one passes', () => {
    expect(found('apps/mock/src/cycle-a.ts')).toEqual(['no-circular']);
    expect(found('scripts/cycle-a.mjs')).toEqual(['no-circular']);
    expect(found('packages/client/src/cycle-a.ts')).toEqual(['no-circular']);
    expect(found('packages/client/src/no-cycle.ts')).toEqual([]);
  });

  it('refuses an app importing another app, built or not', () => {
    expect(found('apps/e2e/src/uses-reference.ts')).toEqual(['app-imports-app']);
    expect(found('apps/docs/src/uses-bench.ts')).toEqual(['app-imports-app', 'undeclared-workspace-package']);
  });

  it('refuses any import of ours from the spec package, its code or its tests', () => {
    expect(found('packages/spec/src/uses-client.ts')).toEqual([
      'spec-imports-a-package',
      'undeclared-workspace-package',
    ]);
    expect(found('packages/spec/test/uses-client.test.ts')).toEqual([
      'spec-imports-a-package',
      'undeclared-workspace-package',
    ]);
  });

  it('refuses a package its package.json does not declare, though a node_modules above makes it resolve', () => {
    expect(found('packages/server/src/uses-test-servers.ts')).toEqual(['undeclared-workspace-package']);
    expect(found('packages/server/test/uses-test-servers.test.ts')).toEqual(['undeclared-workspace-package']);
    // Not built: seen by name, as written.
    expect(found('packages/contract-tests/src/uses-server.ts')).toEqual(['undeclared-workspace-package']);
    expect(found('packages/contract-tests/src/uses-client.ts')).toEqual([]);
  });

  it("refuses a published package's code importing what it declares for development only, and lets its tests", () => {
    expect(found('packages/client/src/uses-spec.ts')).toEqual(['published-code-imports-dev-dependency']);
    expect(found('packages/client/test/uses-spec.test.ts')).toEqual([]);
    // The published kit importing the private test servers: a partner installing it from a registry would not get them.
    expect(found('packages/contract-tests/src/uses-test-servers.ts')).toEqual([
      'published-code-imports-dev-dependency',
    ]);
    expect(found('packages/contract-tests/test/uses-test-servers.test.ts')).toEqual([]);
  });

  it('lets the benchmark harness start an app through its exports, never by its dist/ path', () => {
    expect(found('apps/bench/src/measures-reference.ts')).toEqual([]);
    expect(found('apps/bench/src/deep.ts')).toEqual(['package-subpath-into-dist-or-src']);
  });

  it('refuses importing a package that declares no exports map', () => {
    expect(found('apps/bench/src/uses-e2e.ts')).toEqual(['package-without-exports', 'undeclared-workspace-package']);
  });

  it("refuses a package's code reaching into an app, and lets its tests start one through its exports", () => {
    expect(found('packages/spec/src/uses-mock.ts')).toEqual([
      'package-reaches-into-app',
      'spec-imports-a-package',
      'undeclared-workspace-package',
    ]);
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

// A path a test spawns or reads is no import, so the linter above does not see it: these tests read the code itself.
// A file path that starts a string (`'apps/reference/dist/cli.js'`, `'../../apps/mock/dist/index.js'`) or is joined from
// parts (`join(root, 'apps', 'reference', 'dist', 'cli.js')`) into another package's dist/ or src/ is refused; such a
// file is reached through the package's exports (`createRequire(import.meta.url).resolve('@cls-api/reference/cli')`).
// A package's paths into its own folders are its own business.

/** Files allowed to name another package's files, and why. */
const NAMING_OTHERS = new Map([
  // It plants crossings in a temporary copy of the workspace, to show the linter refuses them.
  ['packages/spec/test/boundaries.test.ts', 'plants crossings'],
  // It checks that ARCHITECTURE.md names the kit files that hold each rule: the kit's source, read as text.
  ['packages/spec/test/architecture.test.ts', 'checks the map of files'],
]);

const REACH = [
  /['"`](?:\.{1,2}\/)*(apps|packages)\/([\w.-]+)\/(?:dist|src)\//g,
  /['"`](apps|packages)['"`]\s*,\s*['"`]([\w.-]+)['"`]\s*,\s*['"`](?:dist|src)['"`]/g,
  // A handle on another package's folder, which its dist/ is then joined to: `join(root, 'apps', 'mock')`.
  /['"`](apps|packages)['"`]\s*,\s*['"`]([\w.-]+)['"`]\s*\)/g,
];

/** Each place in `text` (comments left out) that names another package's dist/ or src/ by path. */
function reachesOf(text: string, own: string | undefined): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
  return REACH.flatMap((pattern) =>
    [...code.matchAll(pattern)].filter((m) => `${m[1]}/${m[2]}` !== own).map((m) => m[0]),
  );
}

function codeFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (['node_modules', 'dist', 'generated', 'reports'].includes(d.name)) return [];
    const path = join(dir, d.name);
    if (d.isDirectory()) return codeFiles(path);
    return /\.(ts|mts|js|mjs|cjs)$/.test(d.name) ? [path] : [];
  });
}

describe('file paths into another package', () => {
  it('finds a dist/ or src/ path of another package, and lets a package name its own', () => {
    expect(reachesOf("const cli = join(root, 'apps', 'reference', 'dist', 'cli.js');", 'packages/release')).toEqual([
      "'apps', 'reference', 'dist'",
    ]);
    expect(reachesOf("await import('../../../../apps/mock/dist/index.js');", 'packages/contract-tests')).toEqual([
      "'../../../../apps/mock/dist/",
    ]);
    expect(reachesOf("const mockDir = join(repoRoot, 'apps', 'mock');", 'packages/contract-tests')).toEqual([
      "'apps', 'mock')",
    ]);
    expect(reachesOf("readFileSync(join(root, 'packages', 'spec', 'CHANGELOG.md'))", 'apps/release')).toEqual([]);
    expect(reachesOf("const cli = join(root, 'apps', 'reference', 'dist', 'cli.js');", 'apps/reference')).toEqual([]);
    expect(reachesOf("// started from 'apps/reference/dist/cli.js'\n", undefined)).toEqual([]);
  });

  it("no source, test or script file of the workspace names another package's dist/ or src/", () => {
    const found: string[] = [];
    const files = [
      ...['apps', 'packages'].flatMap((group) =>
        readdirSync(join(root, group)).flatMap((name) =>
          codeFiles(join(root, group, name)).map((file) => ({ file, own: `${group}/${name}` })),
        ),
      ),
      ...codeFiles(join(root, 'scripts')).map((file) => ({ file, own: undefined })),
    ];
    for (const { file, own } of files) {
      const path = relative(root, file);
      if (NAMING_OTHERS.has(path)) continue;
      for (const reach of reachesOf(readFileSync(file, 'utf8'), own)) found.push(`${path}: ${reach}`);
    }
    expect(files.length).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });

  it("the root's scripts run a package's CLI by its export or bin, never by its file", () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const byPath = Object.entries(scripts).filter(([, line]) =>
      /(^|[\s'"])(apps|packages)\/[^/\s]+\/(dist|src)\//.test(line),
    );
    expect(byPath).toEqual([]);
    expect(scripts.reference).toBe('exec node scripts/run-cli.mjs @cls-api/reference/cli');
  });
});
