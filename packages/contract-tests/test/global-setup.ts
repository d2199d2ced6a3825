// Builds dist/ when it is missing or older than src/, so the CLI tests run the command as a partner would.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const pkgDir = resolve(import.meta.dirname, '..');

function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export default function setup(): void {
  const cli = join(pkgDir, 'dist', 'cli.js');
  if (existsSync(cli) && statSync(cli).mtimeMs >= newest(join(pkgDir, 'src'))) return;
  const tsc = join(pkgDir, 'node_modules', 'typescript', 'bin', 'tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: pkgDir, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`building dist/ failed:\n${res.stdout}${res.stderr}`);
}
