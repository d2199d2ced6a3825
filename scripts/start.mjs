#!/usr/bin/env node
// `pnpm start`: the main job. Builds everything through turbo, then says what was built and where.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off', DO_NOT_TRACK: '1' };
const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'lint', 'build'], { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) {
  console.error('\nThe build failed; see the output above.');
  process.exit(build.status ?? 1);
}

const outputs = [
  ['Bundled contract (JSON)', 'packages/spec/dist/openapi.json'],
  ['Bundled contract (YAML)', 'packages/spec/dist/openapi.yaml'],
  ['Dereferenced contract', 'packages/spec/dist/openapi.dereferenced.json'],
];
console.log('\nBuilt:');
for (const [what, path] of outputs) {
  const full = join(root, path);
  console.log(`  ${what.padEnd(26)} ${existsSync(full) ? relative(process.cwd(), full) : `${path} (missing!)`}`);
}
