// The tests read the built site and the generated samples, so build both from the current bundle once per run.
// A failed build fails here with the build's own output.
// Run by turbo (`pnpm test`, or `turbo run test`), the test task runs after this package's own build (turbo.json:
// test depends on build), which has just written the same site from the same sources or restored it from its cache:
// building it again would double that work, so the site is taken as it is. Run directly (`vitest run`,
// `pnpm --filter @cls-api/docs test`), the site may be older than the sources, so it is built here.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

export default function setup(): void {
  // Turbo gives every task it runs its hash.
  if (process.env.TURBO_HASH) return;
  const pkgDir = resolve(import.meta.dirname, '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  for (const args of [[tsc, '-p', 'tsconfig.json'], [join(pkgDir, 'dist', 'lib', 'build-site.js')]]) {
    const res = spawnSync(process.execPath, args, { cwd: pkgDir, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`${args.join(' ')} failed:\n${res.stdout}${res.stderr}`);
  }
}
