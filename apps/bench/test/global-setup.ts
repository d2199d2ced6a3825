// The smoke test runs dist/cli.js (its server processes are dist/servers/*.js), so dist/ must match src/: compile
// once per run.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

export default function setup(): void {
  const pkgDir = resolve(import.meta.dirname, '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: pkgDir, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`tsc failed:\n${res.stdout}${res.stderr}`);
}
