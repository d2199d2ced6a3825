// The repository the release tools run in: its root, its public packages in dependency order, and the bundle of
// the contract at any git ref.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { OpenApiDocument } from '@cls-api/spec';

const require = createRequire(import.meta.url);

/** The repository root: the nearest directory above this package with a pnpm-workspace.yaml. */
export function repoRoot(from = import.meta.dirname): string {
  let dir = resolve(from);
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = up;
  }
  return dir;
}

export interface PublicPackage {
  name: string;
  version: string;
  dir: string;
  /** Public packages of this repository it depends on (dependencies or devDependencies). */
  internal: string[];
}

/** Every package under packages/ and apps/ that is not private, ordered so each comes after what it depends on. */
export function publicPackages(root: string): PublicPackage[] {
  const all: PublicPackage[] = [];
  for (const group of ['packages', 'apps']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const file = join(base, name, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.private) continue;
      const deps = { ...manifest.dependencies, ...manifest.devDependencies };
      all.push({ name: manifest.name, version: manifest.version, dir: join(base, name), internal: Object.keys(deps) });
    }
  }
  const names = new Set(all.map((p) => p.name));
  for (const p of all) p.internal = p.internal.filter((d) => names.has(d));
  const ordered: PublicPackage[] = [];
  const visit = (p: PublicPackage, stack: string[]) => {
    if (ordered.includes(p)) return;
    if (stack.includes(p.name))
      throw new Error(`public packages depend on each other in a cycle: ${stack.join(' → ')}`);
    for (const d of p.internal) visit(all.find((q) => q.name === d)!, [...stack, p.name]);
    ordered.push(p);
  };
  for (const p of all) visit(p, []);
  return ordered;
}

export function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function refExists(root: string, ref: string): boolean {
  return spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: root }).status === 0;
}

/** The newest release tag (`v3.1.0`) reachable from HEAD, or undefined. */
export function lastReleaseTag(root: string): string | undefined {
  const r = spawnSync('git', ['describe', '--tags', '--abbrev=0', '--match', 'v[0-9]*.[0-9]*.[0-9]*', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The gate's default base: the last release tag, else origin/main, else HEAD~1; undefined when none exists. */
export function defaultBase(root: string): string | undefined {
  const tag = lastReleaseTag(root);
  if (tag) return tag;
  for (const ref of ['origin/main', 'HEAD~1']) if (refExists(root, ref)) return ref;
  return undefined;
}

/** The contract bundled from `spec/` as it is at `ref` (Redocly, with that commit's configuration). */
export function bundleAtRef(root: string, ref: string): OpenApiDocument {
  if (!refExists(root, ref)) throw new Error(`${ref} is not a commit of this repository`);
  const work = mkdtempSync(join(tmpdir(), 'cls-base-'));
  try {
    const paths = ['spec', 'redocly.yaml'].filter(
      (p) => spawnSync('git', ['cat-file', '-e', `${ref}:${p}`], { cwd: root }).status === 0,
    );
    const archive = execFileSync('git', ['archive', '--format=tar', ref, ...paths], {
      cwd: root,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', work], { input: archive });
    const redocly = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
    const out = join(work, 'openapi.json');
    const args = [redocly, 'bundle', join(work, 'spec', 'openapi.yaml'), '--output', out, '--ext', 'json'];
    if (existsSync(join(work, 'redocly.yaml'))) args.push('--config', join(work, 'redocly.yaml'));
    const run = spawnSync(process.execPath, args, {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    if (run.status !== 0 || !existsSync(out)) {
      throw new Error(`bundling spec/ at ${ref} failed:\n${run.stdout}\n${run.stderr}`);
    }
    return JSON.parse(readFileSync(out, 'utf8')) as OpenApiDocument;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `info.version` of the contract moves with @cls-api/spec's version: one line of spec/openapi.yaml. */
export function syncContractVersion(root: string, next: string): void {
  const file = join(root, 'spec', 'openapi.yaml');
  const text = readFileSync(file, 'utf8');
  const updated = text.replace(/^(info:\n(?:[ ]{2}.*\n)*?[ ]{2}version:[ ]*)\S+$/m, `$1${next}`);
  if (updated === text && !text.includes(`version: ${next}`)) throw new Error(`no info.version line in ${file}`);
  writeFileSync(file, updated);
}
