#!/usr/bin/env node
// `pnpm test`: every check of the repo through turbo (lint, typecheck, test, and what they depend on), then one
// closing line "N passed, N failed" summed over every suite, which CI reads. Turbo runs the builds first, then each
// suite in a turbo run of its own, longest first, and the checks one after the other in one more slot
// (scripts/test-reports.mjs, testPlan): turbo alone starts ready tasks in the order they become ready, which left the
// two longest suites to start last.
//
// A test task contributes its test cases, read from the JSON reports it leaves in <package>/reports/ (vitest's
// json reporter shape: numPassedTests, numFailedTests). Turbo restores those reports on a cache hit, so a fully
// cached run still counts every test. Every other task (lint, typecheck, build, ...) counts as one check. A task
// that failed without a report, or never ran because something it depends on failed, counts as one failure.
//
// Every temporary file and folder the suites make (and the servers, packers and browsers they start) goes under one
// folder of this run, removed at the end: a process a test kills cannot clean up after itself, and hundreds of runs
// would otherwise fill the machine's temporary folder.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readReports, runEnvOf, summariesAfter, summaryFiles, testPlan, turboConcurrency } from './test-reports.mjs';
import { importExport } from './workspace.mjs';

const root = resolve(import.meta.dirname, '..');
// Turbo's own binary, not `pnpm exec turbo`: a run makes some 30 turbo runs (the plan, the builds, each suite and each
// check), and pnpm's start took a second of each on an idle machine, several on a busy one.
const turbo = join(root, 'node_modules', '.bin', 'turbo');
const runsDir = join(root, '.turbo', 'runs');
// The run summaries turbo had written before this run, which are not this run's (summariesAfter).
const earlierSummaries = summaryFiles(runsDir);
const scratch = mkdtempSync(join(tmpdir(), 'cls-test-run-'));
// Open to every user as the machine's own temporary folder is: PostgreSQL runs as its own user when tests are root.
chmodSync(scratch, 0o1777);

// Turbo's default is ten tasks at once, whatever the machine: on two cores the suites' fixed limits then time out.
const concurrencyArg = process.argv.slice(2).find((a) => a.startsWith('--concurrency='));
const slots = concurrencyArg ? Math.max(1, Number(concurrencyArg.split('=')[1]) || 1) : turboConcurrency();
const userArgs = process.argv.slice(2).filter((a) => a !== concurrencyArg);
// `--filter` (`-F`) chooses what the plan holds; the runs below name their tasks. Other options (`--force`) go to each.
const passOn = userArgs.filter((a, i) => !/^(--filter|-F)(=|$)/.test(a) && !/^(--filter|-F)$/.test(userArgs[i - 1]));
const env = {
  ...process.env,
  TMPDIR: scratch,
  TURBO_TELEMETRY_DISABLED: '1',
  REDOCLY_TELEMETRY: 'off',
  DO_NOT_TRACK: '1',
};

await installDebianPackages();

const children = new Set();
let interrupted = '';
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  // A terminal's Ctrl-C reaches every child as well: start nothing more, let the running ones stop, then count.
  process.on(signal, () => {
    interrupted ||= signal;
    for (const child of children) child.kill(signal);
  });
}
const turboRun = (tasks, extra, extraEnv = {}) =>
  new Promise((done) => {
    const args = ['run', ...tasks, '--continue', '--summarize', ...extra, ...passOn];
    const child = spawn(turbo, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
    children.add(child);
    child.on('exit', (code) => {
      children.delete(child);
      done(code ?? 1);
    });
  });

// The plan: turbo's graph of every check, read without running anything.
const dry = spawnSync(turbo, ['run', 'lint', 'lint:repo', 'typecheck', 'test', '--dry=json', ...userArgs], {
  cwd: root,
  env,
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
});
let plan = null;
try {
  if (dry.status !== 0) throw new Error(`exit ${dry.status}: ${dry.stderr.trim()}`);
  plan = testPlan(JSON.parse(dry.stdout).tasks);
} catch (error) {
  console.error(`turbo could not plan the run: ${error.message}`);
}
let turboFailed = !plan;
const blocked = [];
if (plan) {
  // Every build, bundle and generated file the suites and checks read, in one turbo run.
  if (plan.before.length && (await turboRun(plan.before, [`--concurrency=${slots}`])) !== 0) turboFailed = true;
  const done = new Map(summariesAfter(runsDir, earlierSummaries).flatMap((s) => s.tasks.map((t) => [t.taskId, t])));
  const unbuilt = new Set(plan.before.filter((id) => done.get(id)?.execution?.exitCode !== 0));
  // Then the suites, longest first, and the checks, as many runs at once as there are slots, each task its own turbo
  // run (`--only`: what it needs is built above), so that the order is the plan's; a run's tasks (the checks) one
  // after the other. Each is told its hash in the whole graph (runEnvOf), which `--only` alone would leave out of its
  // cache key. A task whose build failed is not run: it would test a stale build.
  const queue = [];
  for (const run of plan.runs) {
    const ready = run.tasks.filter((t) => ![...t.needs].some((id) => unbuilt.has(id)));
    blocked.push(...run.tasks.filter((t) => !ready.includes(t)));
    if (ready.length) queue.push(ready);
  }
  await Promise.all(
    Array.from({ length: Math.min(slots, queue.length) }, async () => {
      while (queue.length && !interrupted) {
        for (const task of queue.shift()) {
          if (interrupted) break;
          if ((await turboRun([task.taskId], ['--only', '--concurrency=1'], runEnvOf(task))) !== 0) turboFailed = true;
        }
      }
    }),
  );
  if (interrupted) turboFailed = true;
}
rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });

const summaries = summariesAfter(runsDir, earlierSummaries);
let passed = 0;
let failed = 0;
const lines = [];
const failures = [];

if (!summaries.length) {
  failed += 1;
  lines.push('turbo wrote no run summary: the run itself failed');
} else {
  const tasks = [
    ...summaries.flatMap((s) => s.tasks),
    ...blocked.map((t) => ({ taskId: t.taskId, task: t.taskId.split('#')[1], package: t.package })),
  ];
  for (const task of tasks) {
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

// An interrupted run counts as failed whatever finished before: the suites it stopped or never started are missing.
if (interrupted) {
  failed += 1;
  failures.push(`interrupted (${interrupted}): the suites stopped or not started are not counted`);
  lines.push(`interrupted by ${interrupted}`);
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
process.exit(failed > 0 || turboFailed ? 1 : 0);

// Debian's servers, Chromium and Java, installed once before any suite starts when missing (a fresh CI machine has none).
// Left to the suites, several packages' tests (and the `cluster` commands they start) would ask apt at once and
// wait on each other's lock, inside time limits meant for the test itself.
async function installDebianPackages() {
  const build = ['run', 'build', '--filter=@cls-api/chromium', '--output-logs=errors-only'];
  if (spawnSync(turbo, build, { cwd: root, stdio: 'inherit', env }).status !== 0) return; // the run below says why
  const { JAVA_RUNTIME, SERVER_PACKAGES, ensureDebianPackages } = await importExport('@cls-api/test-servers');
  const { CHROMIUM_PACKAGE } = await importExport('@cls-api/chromium');
  try {
    await ensureDebianPackages([...SERVER_PACKAGES, CHROMIUM_PACKAGE, JAVA_RUNTIME], (line) =>
      console.log(`[debian] ${line}`),
    );
  } catch (error) {
    console.log(`[debian] ${error.message}: the suites that need these servers try again and say so`);
  }
}
