// `pnpm test`'s closing counts (scripts/test-all.mjs) read each package's vitest JSON report: a case that failed, and
// a file that failed around its cases (its `beforeAll` threw, so every case shows as skipped), are each counted and
// named, so the tail of a CI log says which test broke.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

type Counts = { passed: number; failed: number; failures: string[] } | null;
const script = pathToFileURL(resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'test-reports.mjs')).href;
type PlannedTask = { taskId: string; task: string; package: string; dependencies: string[] };
const { readReports, turboConcurrency, testPlan, RUN_ORDER, summaryFiles, summariesAfter } = (await import(script)) as {
  summaryFiles: (runsDir: string) => Set<string>;
  summariesAfter: (runsDir: string, earlier: Set<string>) => Array<{ id: string }>;
  readReports: (dir: string, pkg: string) => Counts;
  turboConcurrency: (cores?: number) => number;
  testPlan: (tasks: PlannedTask[]) => {
    before: string[];
    runs: Array<{ label: string; tasks: Array<{ taskId: string; package: string; needs: Set<string> }> }>;
  };
  RUN_ORDER: string[];
};
const shared = pathToFileURL(resolve(import.meta.dirname, '..', '..', '..', 'vitest.shared.mjs')).href;
const { stackWithMessage } = (await import(shared)) as {
  stackWithMessage: (error: { message?: string; stack?: string; name?: string }) => void;
};

const dir = mkdtempSync(join(tmpdir(), 'cls-test-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases = (status: string, n: number, failure?: string) =>
  Array.from({ length: n }, (_, i) => ({
    fullName: `case ${i}`,
    status,
    failureMessages: failure ? [failure] : [],
  }));

describe("pnpm test's report reading", () => {
  it('counts and names a failed case, and a file whose set-up failed with every case skipped', () => {
    mkdirSync(join(dir, 'reports'));
    writeFileSync(
      join(dir, 'reports', 'vitest.json'),
      JSON.stringify({
        numPassedTests: 3,
        numFailedTests: 1,
        testResults: [
          {
            name: join(dir, 'test', 'ok.test.ts'),
            status: 'passed',
            message: '',
            assertionResults: cases('passed', 3),
          },
          {
            name: join(dir, 'test', 'case.test.ts'),
            status: 'failed',
            message: '',
            assertionResults: cases('failed', 1, 'AssertionError: expected 1 to be 2\n    at …'),
          },
          {
            name: join(dir, 'test', 'registry.test.ts'),
            status: 'failed',
            message: '\nError: Command failed: npm install @cls-api/client\nnpm error code E404',
            assertionResults: cases('skipped', 9),
          },
        ],
      }),
    );
    const counts = readReports(dir, '@cls-api/release');
    expect(counts?.passed).toBe(3);
    expect(counts?.failed).toBe(2);
    expect(counts?.failures).toEqual([
      '@cls-api/release test/case.test.ts > case 0: AssertionError: expected 1 to be 2',
      '@cls-api/release test/registry.test.ts: Error: Command failed: npm install @cls-api/client',
    ]);
  });

  it('names a timed-out case and a timed-out hook with their limits, a browser wait with what it waited for, and an assertion with its message', () => {
    const pkg = join(dir, 'timeouts');
    mkdirSync(join(pkg, 'reports'), { recursive: true });
    const limitHint =
      '\nIf this is a long-running test, pass a timeout value as the last argument or configure it globally';
    writeFileSync(
      join(pkg, 'reports', 'vitest.json'),
      JSON.stringify({
        numPassedTests: 0,
        numFailedTests: 4,
        testResults: [
          {
            name: join(pkg, 'test', 'start.test.ts'),
            status: 'failed',
            message: '',
            assertionResults: [
              {
                fullName: 'pnpm start serves all three',
                status: 'failed',
                duration: 120_004,
                failureMessages: [`Error: Test timed out in 120000ms.${limitHint}\n    at task (file:///x.js:1:1)`],
              },
              {
                fullName: 'pnpm start exits 1',
                status: 'failed',
                duration: 12,
                failureMessages: ['AssertionError: expected 0 to be 1 // Object.is equality\n    at /x.test.ts:4:37'],
              },
              // A browser wait that ran out: Playwright names the locator in its call log, not in the first line.
              {
                fullName: 'console sends it to the mock',
                status: 'failed',
                duration: 70_000,
                failureMessages: [
                  "locator.waitFor: Timeout 60000ms exceeded.\nCall log:\n\u001b[2m  - waiting for getByRole('region', { name: /Code Snippet/ }).getByText('example=x').first()\u001b[22m\n\n    at send (/x.test.ts:91:8)",
                ],
              },
              // A report vitest wrote without vitest.shared.mjs's reporter: the limit is lost, the time it ran is not.
              {
                fullName: 'pnpm start prints the keys',
                status: 'failed',
                duration: 60_321,
                failureMessages: ['Error: STACK_TRACE_ERROR\n    at task (file:///x.js:1:1)'],
              },
            ],
          },
          {
            name: join(pkg, 'test', 'mock.test.ts'),
            status: 'failed',
            message: 'Hook timed out in 300000ms.\nIf this is a long-running hook, pass a timeout value',
            assertionResults: cases('skipped', 4),
          },
        ],
      }),
    );
    expect(readReports(pkg, '@cls-api/e2e')?.failures).toEqual([
      '@cls-api/e2e test/start.test.ts > pnpm start serves all three: timed out after 120 s',
      '@cls-api/e2e test/start.test.ts > pnpm start exits 1: AssertionError: expected 0 to be 1 // Object.is equality',
      "@cls-api/e2e test/start.test.ts > console sends it to the mock: locator.waitFor: Timeout 60000ms exceeded. (waiting for getByRole('region', { name: /Code Snippet/ }).getByText('example=x').first())",
      '@cls-api/e2e test/start.test.ts > pnpm start prints the keys: timed out after running 60 s',
      '@cls-api/e2e test/mock.test.ts: a hook timed out after 300 s',
    ]);
  });

  it("gives vitest's timeout error its message in place of the placeholder its stack was made with", () => {
    // As vitest's runner makes it: the error before the test runs, its message when the limit passes.
    const error = new Error('STACK_TRACE_ERROR');
    error.message = 'Test timed out in 500ms.\nIf this is a long-running test, pass a timeout value';
    stackWithMessage(error);
    expect(error.stack?.split('\n').slice(0, 2)).toEqual([
      'Error: Test timed out in 500ms.',
      'If this is a long-running test, pass a timeout value',
    ]);
    expect(error.stack?.split('\n')[2]).toMatch(/^\s+at /);
    const assertion = new Error('expected 1 to be 2');
    const before = assertion.stack;
    stackWithMessage(assertion);
    expect(assertion.stack).toBe(before);
  });

  // "TypeError: fetch failed" is all undici's error says; why (a refused or reset connection) is in its `cause`, which
  // the json reporter leaves out. A fetch that failed this way in CI said nothing more in the list of failures.
  it("names what a wrapping error's causes say, in the report a suite writes with the shared config", async () => {
    const project = mkdtempSync(join(dir, 'causes-'));
    const closed = createServer();
    const free = await new Promise<number>((done) =>
      closed.listen(0, '127.0.0.1', () => done((closed.address() as AddressInfo).port)),
    );
    await new Promise((done) => closed.close(done));
    writeFileSync(
      join(project, 'vitest.config.mjs'),
      `import { packageTestConfig } from ${JSON.stringify(shared)};\n` +
        'export default packageTestConfig({ testTimeout: 60_000, globals: true });\n',
    );
    mkdirSync(join(project, 'test'));
    writeFileSync(
      join(project, 'test', 'causes.test.ts'),
      [
        `test('fetches a closed port', async () => { await fetch('http://127.0.0.1:${free}/'); });`,
        "test('fails two causes deep', () => {",
        "  throw new Error('outer', { cause: Object.assign(new Error('middle', { cause: 'a string' }), { code: 'E_MID' }) });",
        '});',
        "test('fails plainly', () => { throw new Error('no cause'); });",
        '',
      ].join('\n'),
    );
    const vitest = spawnSync(
      join(import.meta.dirname, '..', 'node_modules', '.bin', 'vitest'),
      ['run', '--root', project, '--config', join(project, 'vitest.config.mjs')],
      { cwd: project, encoding: 'utf8' },
    );
    expect(vitest.status, vitest.stdout + vitest.stderr).toBe(1);
    expect(readReports(project, '@cls-api/x')?.failures).toEqual([
      `@cls-api/x test/causes.test.ts > fetches a closed port: TypeError: fetch failed; caused by Error: connect ECONNREFUSED 127.0.0.1:${free}`,
      '@cls-api/x test/causes.test.ts > fails two causes deep: Error: outer; caused by Error: middle (E_MID); caused by a string',
      '@cls-api/x test/causes.test.ts > fails plainly: Error: no cause',
    ]);
  });

  it('runs one turbo task per core, at least one', () => {
    expect(turboConcurrency(2)).toBe(2);
    expect(turboConcurrency(16)).toBe(16);
    expect(turboConcurrency(1)).toBe(1);
    expect(turboConcurrency(0)).toBe(1);
  });

  it('plans the builds first, then the suites longest first and the checks in one run, each with all it needs', () => {
    const task = (pkg: string, name: string, dependencies: string[] = []) => ({
      taskId: `${pkg}#${name}`,
      task: name,
      package: pkg,
      dependencies,
    });
    const [first, second] = RUN_ORDER as [string, string];
    const plan = testPlan([
      task('@cls-api/spec', 'bundle'),
      task('@cls-api/spec', 'build', ['@cls-api/spec#bundle']),
      task('@cls-api/spec', 'test', ['@cls-api/spec#build']),
      task('@cls-api/x', 'build', ['@cls-api/spec#build']),
      task('@cls-api/x', 'lint'),
      task('@cls-api/x', 'typecheck', ['@cls-api/spec#build']),
      task('@cls-api/x', 'test', ['@cls-api/x#build']),
      task(second, 'build', ['@cls-api/x#build']),
      task(second, 'test', [`${second}#build`]),
      task(first, 'test', ['@cls-api/spec#build']),
    ]);
    expect(plan.before).toEqual(['@cls-api/spec#bundle', '@cls-api/spec#build', '@cls-api/x#build', `${second}#build`]);
    // The named runs in their order, then the others as the graph lists them.
    expect(plan.runs.map((r) => [r.label, r.tasks.map((t) => t.taskId)])).toEqual([
      [first, [`${first}#test`]],
      [second, [`${second}#test`]],
      ['checks', ['@cls-api/x#lint', '@cls-api/x#typecheck']],
      ['@cls-api/spec', ['@cls-api/spec#test']],
      ['@cls-api/x', ['@cls-api/x#test']],
    ]);
    // What a task needs through its builds counts: a failed bundle leaves every suite above it unrun.
    const needs = (id: string) => [...plan.runs.flatMap((r) => r.tasks).find((t) => t.taskId === id)!.needs].sort();
    expect(needs(`${second}#test`)).toEqual(
      [`${second}#build`, '@cls-api/spec#build', '@cls-api/spec#bundle', '@cls-api/x#build'].sort(),
    );
    expect(needs('@cls-api/x#test')).toEqual(['@cls-api/spec#build', '@cls-api/spec#bundle', '@cls-api/x#build']);
    // A task that needs a suite or a check cannot be planned: the plan says so rather than run it early.
    expect(() => testPlan([task('@cls-api/x', 'test'), task('@cls-api/y', 'build', ['@cls-api/x#test'])])).toThrow(
      /@cls-api\/y#build needs @cls-api\/x#test/,
    );
  });

  it("counts only this run's turbo summaries, not one a run just before it wrote in the same second", () => {
    const runs = join(dir, 'runs');
    mkdirSync(runs, { recursive: true });
    writeFileSync(join(runs, 'before.json'), JSON.stringify({ id: 'before' }));
    const earlier = summaryFiles(runs);
    writeFileSync(join(runs, 'first.json'), JSON.stringify({ id: 'first' }));
    writeFileSync(join(runs, 'second.json'), JSON.stringify({ id: 'second' }));
    writeFileSync(join(runs, 'notes.txt'), 'not a summary');
    expect(
      summariesAfter(runs, earlier)
        .map((s) => s.id)
        .sort(),
    ).toEqual(['first', 'second']);
    expect(summariesAfter(join(dir, 'no-runs-yet'), summaryFiles(join(dir, 'no-runs-yet')))).toEqual([]);
  });

  it('is null for a package that left no reports', () => {
    expect(readReports(join(dir, 'nowhere'), '@cls-api/none')).toBeNull();
  });
});
