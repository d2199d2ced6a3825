// What `pnpm test` (scripts/test-all.mjs) decides apart from running: how many turbo tasks run at once, and the
// closing counts, read from the reports each package's test task leaves.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

/**
 * How many turbo tasks run at once: one per core. Several suites start servers, Prism and browsers and have fixed
 * limits; ten of them at once on two cores timed out cases that pass alone. A suite's own files share its one task.
 */
export function turboConcurrency(cores = availableParallelism()) {
  return Math.max(1, Math.floor(cores));
}

/** The checks that are not suites: each package's lint and typecheck, and the repository's own lint. */
export const CHECKS = ['lint', 'lint:repo', 'typecheck'];

/**
 * The order in which `pnpm test` starts its runs once the builds are done: the suites that take longest first, as
 * measured on a 2-core machine (`pnpm test`'s summary by task), with the checks (CHECKS, one after the other) where
 * their time puts them. Turbo alone starts ready tasks in the order they become ready, which left the two longest
 * suites to start last. Those two, docs and release, each keep both cores busy on their own; started together (on a
 * machine also busy with other work) they took 756 and 803 s against 453 and 416 s in a run where they barely
 * overlapped. The reference suite comes between them, so that release starts when it ends, beside the second half of
 * docs. A suite not named here starts after these, in the graph's order; a wrong order costs time, never a result.
 */
export const RUN_ORDER = [
  '@cls-api/docs',
  '@cls-api/reference',
  '@cls-api/release',
  '@cls-api/contract-tests',
  '@cls-api/bench',
  'checks',
  '@cls-api/client',
  '@cls-api/e2e',
  '@cls-api/mock',
  '@cls-api/toolchain',
];

/** The run summaries in turbo's `runsDir` (`.turbo/runs`), by file name. */
export function summaryFiles(runsDir) {
  return new Set(existsSync(runsDir) ? readdirSync(runsDir).filter((f) => f.endsWith('.json')) : []);
}

/**
 * The run summaries written since `earlier` was read (summaryFiles), oldest first: this run's, and none of a run
 * before it. A start time compared with the files' times counted again the last summary of a run that ended within
 * that second.
 */
export function summariesAfter(runsDir, earlier) {
  return [...summaryFiles(runsDir)]
    .filter((f) => !earlier.has(f))
    .map((f) => join(runsDir, f))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((f) => JSON.parse(readFileSync(f, 'utf8')));
}

/**
 * The variable through which each suite's and check's own turbo run is told the task's hash in the whole graph. That
 * run names the task with `--only` (its builds are done), and turbo then hashes the task without the tasks it
 * depends on: an edit of the mock would have replayed the client's, the kit's and the docs' suites from the cache.
 * The root turbo.json lists this variable in `globalEnv`, so the task's hash in its own run covers its whole graph.
 */
export const GRAPH_HASH_ENV = 'CLS_GRAPH_HASH';

/** The environment of a planned task's own turbo run (testPlan's tasks carry their hash from the dry run). */
export function runEnvOf(task) {
  return { [GRAPH_HASH_ENV]: task.hash ?? '' };
}

/**
 * What `pnpm test` runs, from turbo's dry run of the whole graph (`--dry=json`'s tasks: taskId, task, package,
 * dependencies): first, in one turbo run, every task that is neither a suite nor a check (the builds, bundles and
 * generated code the others read); then the runs of RUN_ORDER, each suite on its own and the checks one after the
 * other. Each task keeps everything it needs, directly or not, so that one whose build failed is reported as not run
 * rather than run on a stale build.
 */
export function testPlan(tasks) {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  const needs = (id, seen = new Set()) => {
    for (const d of byId.get(id)?.dependencies ?? []) {
      if (seen.has(d)) continue;
      seen.add(d);
      needs(d, seen);
    }
    return seen;
  };
  const planned = (t) => ({ taskId: t.taskId, package: t.package, hash: t.hash, needs: needs(t.taskId) });
  const before = tasks.filter((t) => t.task !== 'test' && !CHECKS.includes(t.task));
  for (const t of tasks) {
    const waits = [...needs(t.taskId)].filter((d) => !before.some((b) => b.taskId === d));
    if (waits.length) throw new Error(`${t.taskId} needs ${waits.join(', ')}, which is a suite or a check`);
  }
  const runs = tasks
    .map((t, order) => ({ label: t.package, tasks: [planned(t)], order, t }))
    .filter(({ t }) => t.task === 'test');
  const checks = tasks.filter((t) => CHECKS.includes(t.task)).map(planned);
  if (checks.length) runs.push({ label: 'checks', tasks: checks, order: tasks.length });
  const rank = (label) => {
    const i = RUN_ORDER.indexOf(label);
    return i < 0 ? RUN_ORDER.length : i;
  };
  runs.sort((a, b) => rank(a.label) - rank(b.label) || a.order - b.order);
  return { before: before.map((t) => t.taskId), runs: runs.map(({ label, tasks }) => ({ label, tasks })) };
}

const seconds = (ms) => `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;

/**
 * Why a case or file failed, in one line: a timeout with its limit ("timed out after 60 s"), else the error's first
 * line (an assertion's message; for an error that wraps another, with the causes vitest.shared.mjs's reporter added;
 * for a browser wait that ran out, with what it waited for). A report written without vitest.shared.mjs's reporter
 * still has "STACK_TRACE_ERROR" for a timeout: it is named a timeout with how long the case ran, the limit itself
 * being lost.
 */
export function cause(message, durationMs) {
  const line = firstLine(message);
  const timeout = /^(?:Error: )?(Test|Hook) timed out in (\d+)ms/.exec(line);
  if (timeout) return `${timeout[1] === 'Hook' ? 'a hook ' : ''}timed out after ${seconds(Number(timeout[2]))}`;
  if (/^Error: STACK_TRACE_ERROR$/.test(line)) {
    return typeof durationMs === 'number' ? `timed out after running ${seconds(durationMs)}` : 'timed out';
  }
  const waited = waitedFor(line, message);
  if (waited) return `${line} (waiting for ${waited})`.slice(0, 500);
  return line || 'failed without a message (see its output above)';
}

/**
 * What a browser wait that ran out was waiting for: Playwright's timeout names only the call ("locator.waitFor:
 * Timeout 60000ms exceeded."); the locator is in its call log, the lines after it. Colours stripped.
 */
function waitedFor(line, message) {
  if (!/^(?:\w*Error: )?[\w.]+: Timeout \d+ms exceeded/.test(line)) return null;
  const plain = String(message ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  return /^\s*- waiting for (.+)$/m.exec(plain)?.[1]?.trim() ?? null;
}

function firstLine(message) {
  return (
    String(message ?? '')
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/**
 * The test cases of a package's test task, from the JSON reports its runner left in <dir>/reports/ (vitest's json
 * reporter shape), and each failure named: package, file, case and the first line of its error.
 */
export function readReports(dir, packageName) {
  const reportsDir = join(dir, 'reports');
  if (!existsSync(reportsDir)) return null;
  let p = 0;
  let f = 0;
  const failures = [];
  for (const name of readdirSync(reportsDir)) {
    if (!name.endsWith('.json')) continue;
    const report = JSON.parse(readFileSync(join(reportsDir, name), 'utf8'));
    if (typeof report.numPassedTests !== 'number') continue;
    p += report.numPassedTests;
    f += report.numFailedTests ?? 0;
    for (const file of report.testResults ?? []) {
      const where = relative(dir, file.name ?? '');
      const failedCases = (file.assertionResults ?? []).filter((r) => r.status === 'failed').length;
      // A file that failed with no failed case failed around its cases (a `beforeAll`, an import): its cases show
      // as skipped, so the file itself counts as one failure and is named with its error.
      if (file.status === 'failed' && failedCases === 0) {
        f += 1;
        failures.push(`${packageName} ${where}: ${cause(file.message)}`);
      }
      for (const result of file.assertionResults ?? []) {
        if (result.status !== 'failed') continue;
        failures.push(
          `${packageName} ${where} > ${result.fullName ?? result.title}: ${cause(result.failureMessages?.[0], result.duration)}`,
        );
      }
    }
  }
  return { passed: p, failed: f, failures };
}
