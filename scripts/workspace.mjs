// How the repository's own scripts (`pnpm start`, `pnpm test`, the package commands) reach a workspace package:
// by its name, through its `exports` or its `bin`, as its users do, found among the folders pnpm-workspace.yaml
// lists. The root package.json does not declare them: turbo hashes every file of each workspace package the root
// depends on into every task's hash, so one edit of the reference server would make every task of the repository
// (the spec's build, the client's tests) miss its cache. A package is reached through itself: Node resolves a
// package's own name from inside it (self-reference), through its `exports` alone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');

/**
 * Every workspace package, with its manifest: the folders pnpm-workspace.yaml lists, each a package (`tools/x`) or,
 * written `group/*`, a folder of packages (`packages/*`, `apps/*`).
 */
function workspacePackages() {
  const entries = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .map((line) => /^\s*-\s*['"]?([^'"\s]+?)['"]?\s*$/.exec(line)?.[1])
    .filter(Boolean);
  const dirs = entries.flatMap((entry) =>
    entry.endsWith('/*')
      ? readdirSync(join(root, entry.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => join(root, entry.slice(0, -2), d.name))
      : [join(root, entry)],
  );
  return dirs
    .map((dir) => join(dir, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => ({ dir: dirname(file), manifest: JSON.parse(readFileSync(file, 'utf8')) }));
}

/** The workspace package of a specifier (`@cls-api/reference/cli` is `@cls-api/reference`'s), or undefined. */
function packageOf(specifier) {
  const name = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
  return workspacePackages().find((p) => p.manifest.name === name);
}

/**
 * The file an export of a workspace package names (`@cls-api/reference/cli`), resolved as Node resolves it from
 * inside that package. Throws when the package is not in the workspace, or the export does not resolve (not built).
 */
export function resolveExport(specifier) {
  const pkg = packageOf(specifier);
  if (!pkg) throw new Error(`${specifier}: no workspace package has this name`);
  return createRequire(join(pkg.dir, 'package.json')).resolve(specifier);
}

/** The module of an export of a workspace package (`await importExport('@cls-api/reference')`). */
export function importExport(specifier) {
  return import(pathToFileURL(resolveExport(specifier)).href);
}

/** The workspace package whose `bin` declares `name`, and that bin's file. */
export function binOf(name) {
  for (const { dir, manifest } of workspacePackages()) {
    const bin = typeof manifest.bin === 'string' ? { [manifest.name.split('/').pop()]: manifest.bin } : manifest.bin;
    if (bin?.[name]) return { pkg: manifest.name, file: resolve(dir, bin[name]) };
  }
  return undefined;
}
