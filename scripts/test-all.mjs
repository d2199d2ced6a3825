#!/usr/bin/env node
// `pnpm test`: every check of the repo through turbo (lint, typecheck, test, and what they depend on), then one
// closing line "N passed, N failed" summed over every suite, which CI reads.
//
// A test task contributes its test cases, read from the JSON reports it leaves in <package>/reports/ (vitest's
// json reporter shape: numPassedTests, numFailedTests). Turbo restores those reports on a cache hit, so a fully
// cached run still counts every test. Every other task (lint, typecheck, build, ...) counts as one check. A task
// that failed without a report, or never ran because something it depends on failed, counts as one failure.
//
// Every temporary file and folder the suites make (and the servers, packers and browsers they start) goes under one
// folder of this run, removed at the end: a process a test kills cannot clean up after itself, and hundreds of runs
// would otherwise fill the machine's temporary folder.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readReports, turboConcurrency } from './test-reports.mjs';

const root = resolve(import.meta.dirname, '..');
const runsDir = join(root, '.turbo', 'runs');
const startedAt = Date.now();
const scratch = mkdtempSync(join(tmpdir(), 'cls-test-run-'));
// Open to every user as the machine's own temporary folder is: PostgreSQL runs as its own user when tests are root.
chmodSync(scratch, 0o1777);

await installDebianPackages();

const turboArgs = [
  'exec',
  'turbo',
  'run',
  'lint',
  'lint:repo',
  'typecheck',
  'test',
  '--continue',
  '--summarize',
  // Turbo's default is ten tasks at once, whatever the machine: on two cores the suites' fixed limits then time out.
  ...(process.argv.some((a) => a.startsWith('--concurrency')) ? [] : [`--concurrency=${turboConcurrency()}`]),
  ...process.argv.slice(2),
];
const turbo = spawnSync('pnpm', turboArgs, {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    TMPDIR: scratch,
    TURBO_TELEMETRY_DISABLED: '1',
    REDOCLY_TELEMETRY: 'off',
    DO_NOT_TRACK: '1',
  },
});
rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });

const summary = newestSummary();
let passed = 0;
let failed = 0;
const lines = [];
const failures = [];

if (!summary) {
  failed += 1;
  lines.push('turbo wrote no run summary: the run itself failed');
} else {
  for (const task of summary.tasks) {
    const exitCode = task.execution?.exitCode;
    const ran = typeof exitCode === 'number';
    const counts = task.task === 'test' && ran ? readReports(join(root, task.directory), task.package) : null;
    failures.push(...(counts?.failures ?? []));
    if (counts && counts.passed + counts.failed > 0) {
      passed += counts.passed;
      failed += counts.failed;
      // A runner that exits non-zero with every case green (a crash in teardown, an unhandled error) still fails.
      if (exitCode !== 0 && counts.failed === 0) {
        failed += 1;
        failures.push(`${task.package}: the runner exited ${exitCode} with every case passing (see its output above)`);
      }
      lines.push(
        `${task.taskId}: ${counts.passed} passed, ${counts.failed} failed${exitCode !== 0 ? ` (exit ${exitCode})` : ''}`,
      );
    } else if (ran && exitCode === 0) {
      passed += 1;
      lines.push(`${task.taskId}: ok`);
    } else {
      failed += 1;
      lines.push(`${task.taskId}: ${ran ? `failed (exit ${exitCode})` : 'not run (a task it depends on failed)'}`);
    }
  }
}

// CI keeps only the tail of a long log: every failed case is named here with its cause (the assertion's message, or
// the limit it timed out at), next to the counts, so a red run says which and why.
if (failures.length) {
  console.log('\nFailed tests:');
  for (const f of failures) console.log(`  ${f}`);
}
console.log('\nSummary by task:');
for (const line of lines) console.log(`  ${line}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || turbo.status !== 0 ? 1 : 0);

// Debian's servers, Chromium and Java, installed once before any suite starts when missing (a fresh CI machine has none).
// Left to the suites, several packages' tests (and the `cluster` commands they start) would ask apt at once and
// wait on each other's lock, inside time limits meant for the test itself.
async function installDebianPackages() {
  const build = ['exec', 'turbo', 'run', 'build', '--filter=@cls-api/chromium', '--output-logs=errors-only'];
  if (spawnSync('pnpm', build, { cwd: root, stdio: 'inherit' }).status !== 0) return; // the run below says why
  const { JAVA_RUNTIME, SERVER_PACKAGES, ensureDebianPackages } = await import('@cls-api/test-servers');
  const { CHROMIUM_PACKAGE } = await import('@cls-api/chromium');
  try {
    await ensureDebianPackages([...SERVER_PACKAGES, CHROMIUM_PACKAGE, JAVA_RUNTIME], (line) =>
      console.log(`[debian] ${line}`),
    );
  } catch (error) {
    console.log(`[debian] ${error.message}: the suites that need these servers try again and say so`);
  }
}

function newestSummary() {
  if (!existsSync(runsDir)) return null;
  const files = readdirSync(runsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(runsDir, f))
    .filter((f) => statSync(f).mtimeMs >= startedAt - 1000)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return files.length ? JSON.parse(readFileSync(files[0], 'utf8')) : null;
}
