// The import boundaries of the workspace, checked by `pnpm lint` (lint:repo) and described in words in
// ARCHITECTURE.md ("What may import what"):
//   - apps never import apps (the benchmark harness, whose job is to measure them, starts them through their exports);
//   - packages never reach into apps (a package's tests may start an app through its exports);
//   - nothing imports another package's files: not its dist/ or src/ by a package subpath, not any file by a relative
//     path (built or not), and a package that others import declares an `exports` map, through which alone it is reached.
// The rules are made from the workspace's own package.json files, so a new app or package is covered without an edit.
// They hold whether or not the packages are built: an import by package name that cannot be resolved yet (its
// dist/ not built) is matched by the name as written, one that resolves by the file it reaches.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = import.meta.dirname;
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Every workspace package: its folder (`apps/mock`), its name and whether it declares an `exports` map. */
const workspace = ['apps', 'packages'].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, group, d.name, 'package.json')))
    .map((d) => {
      const manifest = JSON.parse(readFileSync(join(root, group, d.name, 'package.json'), 'utf8'));
      return { group, dir: `${group}/${d.name}`, name: manifest.name, exports: manifest.exports !== undefined };
    }),
);

/** What reaches a package: its files (once resolved) or its name (as written, before its dist/ is built). */
const reaching = (pkg) => `^(${literal(pkg.dir)}/|${literal(pkg.name)}(/|$))`;

const apps = workspace.filter((p) => p.group === 'apps');

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...apps.map((app) => ({
      name: 'app-imports-app',
      comment: `no app imports another app's code; ${app.name} runs as a process (its bin) for the others`,
      severity: 'error',
      from: { path: '^apps/', pathNot: [`^${literal(app.dir)}/`, '^apps/bench/src/'] },
      to: { path: reaching(app) },
    })),
    ...apps.map((app) => ({
      name: 'package-reaches-into-app',
      comment: `packages sit below the apps: ${app.name} is reached only by a package's tests, through its exports`,
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/[^/]+/test/' },
      to: { path: reaching(app) },
    })),
    {
      name: 'package-subpath-into-dist-or-src',
      comment: 'another package is imported through its exports, never by its dist/ or src/ path',
      severity: 'error',
      from: {},
      to: { path: '^@cls-api/[^/]+/(dist|src)(/|$)' },
    },
    {
      name: 'relative-path-into-another-package',
      comment: "another package's files are reached through its name and exports, never by a relative path",
      severity: 'error',
      from: { path: '^(apps|packages)/([^/]+)/' },
      to: { path: '^(apps|packages)/[^/]+/', pathNot: '^$1/$2/', dependencyTypes: ['local'] },
    },
    {
      // The two rules above see a path once it resolves; in a fresh clone (`pnpm lint` runs before any build) another
      // package's dist/ is not there yet, and the import is seen only as written. Every upward relative path into a
      // dist/ or src/ folder that does not resolve is refused: another package's, unbuilt, or a broken one of its own.
      name: 'relative-path-into-unbuilt-dist-or-src',
      comment: "another package's dist/ or src/ is reached through its name and exports, even before it is built",
      severity: 'error',
      from: { path: '^(apps|packages|scripts)/' },
      to: { couldNotResolve: true, path: '^\\.\\./(|.*/)(dist|src)/' },
    },
    {
      name: 'script-path-into-a-package',
      comment: "the repository's scripts reach a package through its name and exports, never by a path",
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^(apps|packages)/', dependencyTypes: ['local'] },
    },
    ...workspace
      .filter((p) => !p.exports)
      .map((pkg) => ({
        name: 'package-without-exports',
        comment: `${pkg.name} declares no exports map: give it one before another package imports it`,
        severity: 'error',
        from: { pathNot: `^${literal(pkg.dir)}/` },
        to: { path: reaching(pkg) },
      })),
  ],
  options: {
    // Neither scanned nor followed, yet seen when imported: what an import of a built package reaches is its dist/.
    doNotFollow: { path: '(^|/)(node_modules|dist|generated|reports)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // Resolve package names as Node does, through `exports`: a subpath a package does not export does not resolve,
    // so it is seen as written (and `package-subpath-into-dist-or-src` sees it).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
