// The package as an integrator gets it: built, packed with `pnpm pack`, and installed with npm into a fresh project
// outside the repository. Shared by the packaging test and the runtime matrix.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const packageDir = join(import.meta.dirname, '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is missing or older than the sources (turbo builds it first; a direct `vitest` may not). */
export function ensureBuilt(): void {
  const entry = join(packageDir, 'dist', 'src', 'index.js');
  const sources = Math.max(newestMtime(join(packageDir, 'src')), newestMtime(join(packageDir, 'generated')));
  if (existsSync(entry) && statSync(entry).mtimeMs >= sources) return;
  execFileSync('pnpm', ['run', 'build'], { cwd: packageDir, stdio: 'pipe' });
}

export interface Packed {
  tarball: string;
  /** The consumer project, with the tarball installed in its node_modules. */
  project: string;
}

/** Packs the package into `work/pack` and installs the tarball with npm into `work/consumer`, an ES module project. */
export async function packAndInstall(work: string): Promise<Packed> {
  ensureBuilt();
  const packDir = join(work, 'pack');
  mkdirSync(packDir);
  await run('pnpm', ['pack', '--pack-destination', packDir], { cwd: packageDir });
  const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
  const project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
    timeout: 240_000,
  });
  return { tarball, project };
}

/** The example the README starts with, as the installed package's README has it. */
export function readmeExample(project: string): string {
  const readme = readFileSync(join(project, 'node_modules', '@cls-api', 'client', 'README.md'), 'utf8');
  const match = /^# [^\n]+\n\n```js\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('the README does not start with a js example');
  return match[1]!;
}
