#!/usr/bin/env node
// `pnpm reference …`, `pnpm contract …`, `pnpm mock`, `pnpm docs:preview`, `pnpm breaking`, `pnpm release`,
// `pnpm bench`: builds the package through turbo (cached), then runs its CLI with the repository root as the working
// directory (so DATABASE=./data/… and report paths are relative to the root). The root package.json runs it with
// `exec`, as `pnpm start`: no shell waits between pnpm and this process, so Ctrl-C ends with the CLI's own exit code
// (0 for the mock and the docs site once stopped, 130 for `pnpm reference serve` and `cluster`, which report the
// signal that stopped them, so pnpm prints its "Command failed" line after them), never a shell's.
//
//   node scripts/run-cli.mjs <export or bin> [arguments for the CLI…]
//
// The CLI is named as a package's public face, never by a file path: an export (`@cls-api/reference/cli`) or a bin
// (`cls-contract`) of a workspace package, found as scripts/workspace.mjs finds it.
//
// CLS_NO_BUILD=1 skips the build (as `pnpm start --no-build` does): for a caller that built already and runs while
// other processes read the build outputs, which a turbo run would restore from its cache under them. `--help` (`-h`)
// skips it too once the CLI is built: a help text needs no fresh build. The build says one line; turbo's own output
// (its banner, the task logs, its summary) is shown only when the build fails.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { binOf, resolveExport } from './workspace.mjs';

const root = resolve(import.meta.dirname, '..');
const [cli, ...args] = process.argv.slice(2);
if (!cli) {
  console.error(
    'usage: node scripts/run-cli.mjs <export, e.g. @cls-api/reference/cli, or bin, e.g. cls-contract> [args…]',
  );
  process.exit(2);
}

/** The package to build and how to find its CLI once built. */
function target(name) {
  if (name.startsWith('@')) {
    // An unknown name is refused by turbo's build, or said not to resolve with the build skipped.
    return { pkg: name.split('/').slice(0, 2).join('/'), file: () => resolveExport(name) };
  }
  const bin = binOf(name);
  if (bin) return { pkg: bin.pkg, file: () => bin.file };
  console.error(`${name}: no workspace package declares this bin`);
  process.exit(2);
}

const { pkg, file } = target(cli);
const askedForHelp = args.includes('--help') || args.includes('-h');
if (process.env.CLS_NO_BUILD !== '1' && !(askedForHelp && resolves())) {
  // To stderr, so that with --json the CLI's stdout carries its JSON and nothing else.
  if (process.stderr.isTTY) process.stderr.write(`Building ${pkg} (turbo, cached)…\r`);
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', `--filter=${pkg}`, '--output-logs=errors-only'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off', DO_NOT_TRACK: '1' },
  });
  if (process.stderr.isTTY) process.stderr.write('\x1b[2K');
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}${build.error ? `${build.error.message}\n` : ''}`);
    console.error(`Building ${pkg} failed; see the output above.`);
    process.exit(build.status ?? 1);
  }
}

function resolves() {
  try {
    file();
    return true;
  } catch {
    return false;
  }
}
let entry;
try {
  entry = file();
} catch (error) {
  console.error(`${cli} does not resolve after building ${pkg}: ${error.message}`);
  process.exit(2);
}
// Ctrl-C, and a closed terminal's SIGHUP, reach the CLI directly (same process group); this process only waits for it
// to stop what it started and passes on its exit.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('SIGHUP', () => {});
const run = spawnSync(process.execPath, [entry, ...args], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
