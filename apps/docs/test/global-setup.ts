// The tests read the built site and the generated samples, so build both from the current bundle once per run.
// A failed build fails here with the build's own output.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

export default function setup(): void {
  const pkgDir = resolve(import.meta.dirname, '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  for (const args of [[tsc, '-p', 'tsconfig.json'], [join(pkgDir, 'dist', 'lib', 'build-site.js')]]) {
    const res = spawnSync(process.execPath, args, { cwd: pkgDir, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`${args.join(' ')} failed:\n${res.stdout}${res.stderr}`);
  }
}
