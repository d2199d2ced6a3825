// The smoke test runs dist/cli.js (its server processes are dist/servers/*.js), so dist/ must match src/. Turbo's
// test task depends on the package's build, so under `pnpm test` dist/ is already current and compiling it again
// would only spend the same seconds twice; a run of vitest alone after an edit compiles it here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

/** Every file under `dir`, recursively. */
function filesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * True when every source file has its compiled file in dist/ written after it, and the compiler's configuration is
 * older than all of them. A checkout, an edit or a new file makes its source newer (or its output missing): compiled.
 */
export function distIsCurrent(pkgDir: string): boolean {
  const src = join(pkgDir, 'src');
  const dist = join(pkgDir, 'dist');
  if (!existsSync(dist)) return false;
  const configs = ['tsconfig.json', '../../tsconfig.base.json'].map((f) => statSync(join(pkgDir, f)).mtimeMs);
  for (const file of filesIn(src)) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const out = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    if (!existsSync(out)) return false;
    const built = statSync(out).mtimeMs;
    if (built < statSync(file).mtimeMs || configs.some((c) => built < c)) return false;
  }
  return true;
}

export default function setup(): void {
  const pkgDir = resolve(import.meta.dirname, '..');
  if (distIsCurrent(pkgDir)) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: pkgDir, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`tsc failed:\n${res.stdout}${res.stderr}`);
}
