#!/usr/bin/env node
// `pnpm reference …`, `pnpm contract …`, `pnpm mock`, `pnpm docs:preview`: builds the package through turbo
// (cached), then runs its CLI with the repository root as the working directory (so DATABASE=./data/… and
// report paths are relative to the root). The root package.json runs it with `exec`, as `pnpm start`: no shell waits
// between pnpm and this process, so Ctrl-C ends with the CLI's own exit code (0 for a server that stops cleanly)
// instead of a shell's 130 and pnpm's "ELIFECYCLE Command failed".
//
//   node scripts/run-cli.mjs <package name> <CLI entry, relative to the root> [arguments for the CLI…]
//
// CLS_NO_BUILD=1 skips the build (as `pnpm start --no-build` does): for a caller that built already and runs while
// other processes read the build outputs, which a turbo run would restore from its cache under them.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const [pkg, entry, ...args] = process.argv.slice(2);
if (!pkg || !entry) {
  console.error('usage: node scripts/run-cli.mjs <package> <cli entry> [args…]');
  process.exit(2);
}
if (process.env.CLS_NO_BUILD !== '1') {
  // The build's output goes to stderr, so that with --json the CLI's stdout carries its JSON and nothing else.
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', `--filter=${pkg}`, '--output-logs=errors-only'], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off' },
  });
  if (build.status !== 0) {
    console.error(`Building ${pkg} failed; see the output above.`);
    process.exit(build.status ?? 1);
  }
}
// Ctrl-C reaches the CLI directly (same process group); this process only waits for it and passes on its exit.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
const run = spawnSync(process.execPath, [resolve(root, entry), ...args], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
