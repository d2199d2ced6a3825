// The import boundaries of the workspace, checked by `pnpm lint` (lint:repo) and described in words in
// ARCHITECTURE.md ("What may import what"):
//   - apps never import apps (the benchmark harness, whose job is to measure them, starts them through their exports);
//   - packages never reach into apps (a package's tests may start an app through its exports);
//   - nothing imports another package's files: not its dist/ or src/ by a package subpath, not any file by a relative
//     path (built or not), and a package that others import declares an `exports` map, through which alone it is reached;
//   - a package imports only the workspace packages its own package.json declares (one in a node_modules folder
//     above it would resolve from anywhere below), and a published package's code (src/) only those it declares for its
//     users, not for its development alone;
//   - the spec package is the bottom layer: it imports no other package of ours;
//   - no import cycle anywhere, a lazy import() or a type-only import included.
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
      const declared = (field) => Object.keys(manifest[field] ?? {});
      return {
        group,
        dir: `${group}/${d.name}`,
        name: manifest.name,
        exports: manifest.exports !== undefined,
        published: manifest.private !== true,
        // What its users install with it, and what it adds for its own tests and tools.
        runtime: [...declared('dependencies'), ...declared('peerDependencies'), ...declared('optionalDependencies')],
        development: declared('devDependencies'),
      };
    }),
);

/** What reaches a package: its files (once resolved) or its name (as written, before its dist/ is built). */
const reaching = (pkg) => `^(${literal(pkg.dir)}/|${literal(pkg.name)}(/|$))`;

const apps = workspace.filter((p) => p.group === 'apps');
const spec = workspace.find((p) => p.name === '@cls-api/spec');
/** The other workspace packages `pkg` may not import, from its `declared` list; one rule each, naming both. */
const outside = (pkg, declared) => workspace.filter((q) => q !== pkg && !declared.includes(q.name));

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
      name: 'no-circular',
      // Type-only imports count too (tsPreCompilationDeps): a cycle of types is a layering that reads both ways.
      comment:
        'no import cycle, a lazy import() included: a module of a cycle may run before what it imports is defined',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
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
    // By name, built (resolved, not `local`) or not (seen as written); a relative path has rules of its own above.
    ...workspace.flatMap((pkg) =>
      outside(pkg, [...pkg.runtime, ...pkg.development]).map((q) => ({
        name: 'undeclared-workspace-package',
        comment: `${pkg.name} imports ${q.name} without declaring it in its package.json`,
        severity: 'error',
        from: { path: `^${literal(pkg.dir)}/` },
        to: { path: reaching(q), dependencyTypesNot: ['local'] },
      })),
    ),
    ...workspace
      .filter((pkg) => pkg.published)
      .flatMap((pkg) =>
        outside(pkg, pkg.runtime)
          .filter((q) => pkg.development.includes(q.name))
          .map((q) => ({
            name: 'published-code-imports-dev-dependency',
            comment: `${pkg.name} is published: its code imports ${q.name}, which its users do not install (a devDependency)`,
            severity: 'error',
            from: { path: `^${literal(pkg.dir)}/src/` },
            to: { path: reaching(q), dependencyTypesNot: ['local'] },
          })),
      ),
    ...(spec
      ? workspace
          .filter((q) => q !== spec)
          .map((q) => ({
            name: 'spec-imports-a-package',
            comment: `${spec.name} is the bottom layer, read by every other package: it imports none of them (${q.name})`,
            severity: 'error',
            from: { path: `^${literal(spec.dir)}/` },
            to: { path: reaching(q) },
          }))
      : []),
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
