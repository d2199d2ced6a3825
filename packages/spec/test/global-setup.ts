// Builds dist/ once per test run when it is missing or older than its inputs, so the tests always read the bundle
// of the spec as it is now. A failed build is handed to the tests rather than thrown: thrown here it would abort
// the run without a per-test result, and the JSON report the root summary reads would count nothing as failed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

const pkgDir = resolve(import.meta.dirname, '..');
const specDir = resolve(pkgDir, '../../spec');
const outputs = [
  'openapi.json',
  'openapi.yaml',
  'openapi.dereferenced.json',
  'sandbox.json',
  'sandbox.yaml',
  'sandbox.dereferenced.json',
].map((f) => join(pkgDir, 'dist', f));

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file only shows as a newer directory
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function needsBuild(): string | null {
  const missing = outputs.filter((f) => !existsSync(f));
  if (missing.length > 0) return `missing ${missing.map((f) => f.slice(pkgDir.length + 1)).join(', ')}`;
  const built = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  const inputs = [specDir, join(pkgDir, 'scripts', 'bundle.mjs')];
  const changed = inputs.filter((p) => newestMtime(p) > built);
  if (changed.length > 0)
    return `older than ${changed.map((p) => p.slice(resolve(pkgDir, '../..').length + 1)).join(', ')}`;
  return null;
}

export default function setup(project: TestProject): void {
  let error: string | null = null;
  const reason = process.env.CLS_SPEC_SKIP_BUILD ? null : needsBuild();
  if (reason) {
    console.log(`[spec] dist/ is ${reason}: running scripts/bundle.mjs`);
    const res = spawnSync(process.execPath, [join(pkgDir, 'scripts', 'bundle.mjs')], { cwd: pkgDir, encoding: 'utf8' });
    if (res.status !== 0) {
      error = `scripts/bundle.mjs failed (exit ${res.status ?? res.signal}):\n${res.stderr || res.stdout}`;
      console.error(`[spec] ${error}`);
    } else {
      const warnings = res.stderr.trim();
      if (warnings) console.warn(`[spec] ${warnings}`);
    }
  }
  project.provide('specBuildError', error);
}

declare module 'vitest' {
  export interface ProvidedContext {
    specBuildError: string | null;
  }
}
