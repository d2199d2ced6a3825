#!/usr/bin/env node
// `pnpm reference <command> …`: builds the reference server through turbo (cached), then runs its CLI in this
// process with the repository root as the working directory (DATABASE defaults to ./data/reference.db there).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
// The build's output goes to stderr, so that with --json stdout carries one JSON object and nothing else.
const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@cls-api/reference', '--output-logs=errors-only'], {
  cwd: root,
  stdio: ['ignore', process.stderr, 'inherit'],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});
if (build.status !== 0) {
  console.error('Building @cls-api/reference failed; see the output above.');
  process.exit(build.status ?? 1);
}
const { main } = await import(pathToFileURL(resolve(root, 'apps/reference/dist/cli.js')).href);
await main(process.argv.slice(2));
