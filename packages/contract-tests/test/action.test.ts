// The kit's GitHub Action (action.yml): it passes the workflow linter, hands the secrets to the kit only as the
// environment variables the kit reads, and its shell steps run as written (support/composite.ts: bash, in order,
// with a runner's GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_ENV files) against the reference server, with the
// kit installed from the tarballs of this checkout: a pull request's run and its outputs, the pre-flight stopping a
// run that would not fit, a failing run failing the step, a fork's empty secrets. The README's workflow is the one
// run, its `with:` block as written.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { UsageError } from '../src/plan/credentials.js';
import { parseCli } from '../src/plan/options.js';
import { NO_CREDENTIAL } from '../src/run/credentials.js';
import { appState, referenceCli, startReference, upstreamOf, type ReferenceServer } from './support/apps.js';
import { kitVariables } from './support/servers.js';
import { readAction, runComposite, type ActionRun, type CompositeAction } from './support/composite.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { bash } from './support/shell.js';

const run = promisify(execFile);
const pkgDir = resolve(import.meta.dirname, '..');
const repoRoot = resolve(pkgDir, '..', '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
};
const action = readAction(join(pkgDir, 'action.yml'));
const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8');
const validator = join(
  dirname(createRequire(import.meta.url).resolve('@action-validator/cli/package.json')),
  'cli.mjs',
);
const work = mkdtempSync(join(tmpdir(), 'cls-action-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The variables the kit reads its target and credentials from, by the input that carries each. */
const CREDENTIAL_INPUTS: Record<string, string> = {
  'base-url': 'CLS_BASE_URL',
  'api-keys': 'CLS_API_KEYS',
  'other-api-keys': 'CLS_OTHER_API_KEYS',
  'client-id': 'CLS_CLIENT_ID',
  'client-secret': 'CLS_CLIENT_SECRET',
  'other-client-id': 'CLS_OTHER_CLIENT_ID',
  'other-client-secret': 'CLS_OTHER_CLIENT_SECRET',
};

function lint(file: string): { status: number | null; output: string } {
  const res = spawnSync(process.execPath, [validator, file], { encoding: 'utf8' });
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

type WorkflowStep = { id?: string; name?: string; uses?: string; if?: string; with?: Record<string, string> } & {
  env?: Record<string, string>;
  run?: string;
};

/** The README's workflow that uses the action (its first line names the file). */
function readmeWorkflow(): { text: string; steps: WorkflowStep[] } {
  const text = /^```yaml\n(# \.github\/workflows\/contract-tests\.yml\n[\s\S]*?)^```$/m.exec(readme)?.[1];
  if (!text) throw new Error('the README has no # .github/workflows/contract-tests.yml block');
  const jobs = (parse(text) as { jobs: Record<string, { steps: WorkflowStep[] }> }).jobs;
  return { text, steps: Object.values(jobs)[0]!.steps };
}

/** `${{ secrets.X }}` and `${{ vars.X }}` from `values`; any other expression is refused. */
function fillIn(value: string, values: Record<string, string>, outputs: Record<string, string> = {}): string {
  return value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const named = /^(?:secrets|vars)\.(\w+)$/.exec(expression)?.[1];
    if (named && values[named] !== undefined) return values[named];
    const output = /^steps\.contract\.outputs\.([\w-]+)$/.exec(expression)?.[1];
    if (output) return outputs[output] ?? '';
    throw new Error(`no value for \${{ ${expression} }}`);
  });
}

describe('action.yml', () => {
  test('passes the workflow linter, which refuses a misspelled key, and the README workflow passes it too', () => {
    const own = lint(join(pkgDir, 'action.yml'));
    expect(own.status, own.output).toBe(0);
    const broken = join(work, 'broken', 'action.yml');
    mkdirSync(dirname(broken), { recursive: true });
    writeFileSync(
      broken,
      readFileSync(join(pkgDir, 'action.yml'), 'utf8').replace('using: composite', 'usin: composite'),
    );
    const refused = lint(broken);
    expect(refused.status).toBe(1);
    expect(refused.output).toContain("Additional property 'usin' is not allowed");
    const workflow = join(work, 'contract-tests.yml');
    writeFileSync(workflow, readmeWorkflow().text);
    const readmeLint = lint(workflow);
    expect(readmeLint.status, readmeLint.output).toBe(0);
  });

  test('secrets reach the kit only as the environment variables it reads, never in a script', () => {
    const steps = action.runs.steps;
    for (const step of steps) {
      expect(step.shell).toBe('bash');
      expect(step.run, step.id).not.toContain('${{');
    }
    const variables: Record<string, string> = {
      CLS_BASE_URL: 'http://127.0.0.1:9',
      CLS_API_KEYS: 'wms_test_abcdefabcdef,manager_test_abcdefabcdef',
      CLS_OTHER_API_KEYS: 'wms_test_bcdefabcdefa',
      CLS_CLIENT_ID: 'cli_test_abcdefabcdef',
      CLS_CLIENT_SECRET: 'secretsecretsecret',
      CLS_OTHER_CLIENT_ID: 'cli_test_bcdefabcdefa',
      CLS_OTHER_CLIENT_SECRET: 'secretsecretsecreu',
    };
    const parsed = (env: Record<string, string>) => {
      try {
        return JSON.stringify(parseCli([], env));
      } catch (err) {
        if (err instanceof UsageError) return `usage: ${err.message}`;
        throw err;
      }
    };
    for (const [input, variable] of Object.entries(CREDENTIAL_INPUTS)) {
      expect(action.inputs[input], input).toBeDefined();
      // Every step that runs the kit hands it on, under the name the kit reads, and no step gets it any other way.
      for (const step of steps.filter((s) => s.run!.includes('-- cls-contract')))
        expect(step.env?.[variable], `${step.id}: ${variable}`).toBe(`\${{ inputs.${input} }}`);
      for (const step of steps)
        for (const [name, value] of Object.entries(step.env ?? {}))
          if (value.includes(`inputs.${input} `)) expect(name, step.id).toBe(variable);
      const without = { ...variables };
      delete without[variable];
      expect(parsed(without), `the kit reads ${variable}`).not.toBe(parsed(variables));
    }
    for (const [name, output] of Object.entries(action.outputs)) {
      expect(output.description, name).toBeTruthy();
      expect(output.value).toBe(`\${{ steps.run.outputs.${name} }}`);
    }
    for (const [name, input] of Object.entries(action.inputs)) expect(input.description, name).toBeTruthy();
  });

  test('the npm package ships it, with the script it runs', () => {
    expect(pkg.files).toEqual(expect.arrayContaining(['action.yml', 'action']));
    expect(action.runs.steps.some((s) => s.run!.includes('$GITHUB_ACTION_PATH/action/outputs.mjs'))).toBe(true);
  });

  test('the README uses it at a released version tag, with inputs it has', () => {
    const { steps } = readmeWorkflow();
    const uses = steps.find((s) => s.id === 'contract')!;
    const tag = /^cls-api\/contract\/packages\/contract-tests@v(\d+)\.(\d+)\.(\d+)$/.exec(uses.uses ?? '');
    expect(tag, uses.uses).not.toBeNull();
    // A tag of this version or an earlier release: a version bump leaves the example pointing at a real release.
    const [major, minor, patch] = pkg.version.split('.').map(Number) as [number, number, number];
    const shown = tag!.slice(1).map(Number) as [number, number, number];
    expect(shown[0] * 1e6 + shown[1] * 1e3 + shown[2]).toBeLessThanOrEqual(major * 1e6 + minor * 1e3 + patch);
    for (const input of Object.keys(uses.with ?? {})) expect(Object.keys(action.inputs)).toContain(input);
    // The cache holds the ledger and the token; the report folder is uploaded when the run failed too.
    const cache = steps.find((s) => s.uses?.startsWith('actions/cache@'))!;
    for (const file of [uses.with!.ledger!, uses.with!['token-file']!])
      expect(file.startsWith(`${cache.with!.path}/`), file).toBe(true);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    expect(upload.with!.path!.replace(/\/$/, '')).toBe(action.inputs['report-dir']!.default);
  });
});

const state = appState(referenceCli);
if (state === 'absent')
  console.warn('skipped: @cls-api/reference is not installed, so the action is not run against the reference server');

describe.skipIf(state === 'absent')('its steps, run as written against the reference server', () => {
  let server: ReferenceServer;
  let tarballs: string[];
  /** A partner's project with the kit installed from the tarballs: where the default package spec resolves. */
  let project: string;
  let home: string;
  let secrets: Record<string, string>;

  beforeAll(async () => {
    if (state === 'unbuilt') throw new Error(`${referenceCli} is missing: build the reference server first`);
    const dest = join(work, 'tarballs');
    await run(
      'pnpm',
      [
        '--filter',
        '@cls-api/spec',
        '--filter',
        '@cls-api/client',
        '--filter',
        pkg.name,
        'pack',
        '--pack-destination',
        dest,
      ],
      { cwd: repoRoot },
    );
    tarballs = readdirSync(dest).map((f) => join(dest, f));
    expect(tarballs).toHaveLength(3);
    project = join(work, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner', private: true }));
    await run('npm', ['install', ...tarballs, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: project,
      timeout: 540_000,
    });
    home = join(work, 'home');
    mkdirSync(home, { recursive: true });
    server = await startReference();
    secrets = kitVariables(server);
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
  });

  /** The runner's environment: this Node first on PATH, a home of its own, and npm as asked. */
  function runner(event: string, npm: Record<string, string>): Record<string, string> {
    return {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: home,
      GITHUB_EVENT_NAME: event,
      GITHUB_RUN_NUMBER: '7',
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      ...npm,
    };
  }

  /** Offline, with an empty cache: a pass proves npx ran the kit installed in the project. */
  const offline = () => ({ npm_config_offline: 'true', npm_config_cache: mkdtempSync(join(work, 'npm-cache-')) });

  /** The README's `with:` block as written, the secrets and variables filled in. */
  function readmeInputs(): Record<string, string> {
    const uses = readmeWorkflow().steps.find((s) => s.id === 'contract')!;
    return Object.fromEntries(Object.entries(uses.with ?? {}).map(([k, v]) => [k, fillIn(String(v), secrets)]));
  }

  /** X-RateLimit-Remaining of a seller's account, read with its key (the read counts itself). */
  async function remaining(key: string): Promise<number> {
    const res = await fetch(`${server.url}/v3/wms/suppliers`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    return Number(res.headers.get('x-ratelimit-remaining'));
  }

  function noSecretIn(result: ActionRun): void {
    const values = Object.entries(secrets).filter(([name]) => name !== 'CLS_BASE_URL');
    for (const [name, list] of values)
      for (const value of list.split(','))
        for (const [where, text] of [
          ['log', result.log],
          ['job summary', result.summary],
        ] as const)
          expect(text.includes(value), `${name} in the ${where}`).toBe(false);
  }

  test("a pull request, from the README's workflow with the kit the project installed: a pr run passes, its outputs from the JSON report, its summary in the job summary", {
    timeout: 900_000,
  }, async ({ onTestFinished }) => {
    // The action as the npm package ships it, which is where `uses: ./node_modules/@cls-api/contract-tests` finds it.
    const actionPath = join(project, 'node_modules', ...pkg.name.split('/'));
    const shipped: CompositeAction = readAction(join(actionPath, 'action.yml'));
    expect(shipped).toEqual(action);
    const sellers = [server.keys.primary.wms!, server.keys.other.wms!];
    const before = await Promise.all(sellers.map(remaining));
    const result = await runComposite(shipped, {
      onTestFinished,
      inputs: readmeInputs(),
      actionPath,
      workspace: project,
      env: runner('pull_request', offline()),
    });
    const after = await Promise.all(sellers.map(remaining));
    expect(result.code, result.log).toBe(0);
    expect(result.steps.map((s) => [s.id, s.code])).toEqual([
      ['kit', 0],
      ['preflight', 0],
      ['run', 0],
    ]);
    expect(result.steps[0]!.output).toContain(`Contract tests: ${pkg.name}@${pkg.version}, profile pr`);
    // A pr run with a ledger keeps back the calls every run makes (profile.ts, PR_SHARED_CALLS) within its 15.
    const expected =
      /Pre-flight: profile pr is expected to spend (\d+) calls of each seller's test-key quota[^\n]*50 kept back/.exec(
        result.steps[1]!.output,
      );
    expect(Number(expected?.[1])).toBeGreaterThan(0);
    expect(Number(expected?.[1])).toBeLessThanOrEqual(15);
    expect(result.steps[1]!.output).toMatch(
      /primary seller \(\$CLS_API_KEY_\w+\): X-RateLimit-Remaining \d+ of \d+, \d+ to spend[^\n]*: fits/,
    );

    const { outputs } = result;
    expect(outputs.report).toBe('reports/contract.json');
    expect(outputs.junit).toBe('reports/contract.xml');
    expect(outputs.summary).toBe('reports/summary.md');
    const report = JSON.parse(readFileSync(join(project, outputs.report!), 'utf8'));
    expect([report.profile.name, report.seed, report.exitCode]).toEqual(['pr', 7, 0]);
    expect(outputs['exit-code']).toBe('0');
    expect(outputs.passed).toBe(String(report.totals.passed));
    expect(Number(outputs.passed)).toBeGreaterThan(0);
    expect(outputs.failed).toBe('0');
    expect(outputs.skipped).toBe(String(report.totals.skipped));
    expect(outputs['stopped-by']).toBe('');
    // The service's own count: each seller's X-RateLimit-Remaining before and after, less the pre-flight's read of
    // each and the read after, which counts itself.
    const counted = before.reduce((n, b, i) => n + (b - after[i]! - 2), 0);
    expect(Number(outputs.metered), result.log).toBe(counted);
    expect(Number(outputs.metered)).toBeGreaterThan(0);
    expect(Number(outputs.metered)).toBeLessThanOrEqual(2 * 15);
    // What each seller had left when the run ended: one more than the read after it saw.
    const left = (['primary', 'other'] as const).flatMap((seller, i) => {
      const q = report.quota[seller];
      if (q) expect(q.remaining, seller).toBe(after[i]! + 1);
      return q ? [q.remaining as number] : [];
    });
    expect(outputs['quota-remaining']).toBe(String(Math.min(...left)));

    const summary = readFileSync(join(project, outputs.summary!), 'utf8');
    expect(summary).toMatch(/^## Contract tests: ✅ passed/);
    expect(summary).toContain('### Coverage');
    expect(result.summary).toBe(summary);
    expect(readFileSync(join(project, outputs.junit!), 'utf8')).toMatch(/^<\?xml/);
    // The cached folder now holds the ledger and the token for the next run; the caller's job env is untouched.
    expect(JSON.parse(readFileSync(join(project, '.cls', 'ledger.json'), 'utf8')).runs).toBe(1);
    expect(existsSync(join(project, '.cls', 'token'))).toBe(true);
    expect(result.jobEnv).toEqual({});
    noSecretIn(result);

    // The README's step after the action, with the action's outputs.
    const notice = readmeWorkflow().steps.find((s) => s.name === 'What the run spent')!;
    const env = Object.fromEntries(Object.entries(notice.env!).map(([k, v]) => [k, fillIn(v, secrets, outputs)]));
    const said = await bash(notice.run!, project, { PATH: process.env.PATH ?? '', ...env }, onTestFinished);
    expect(said.code).toBe(0);
    expect(said.output).toBe(
      `::notice::contract tests ${outputs.passed} passed, 0 failed; ${outputs.metered} test-key calls spent, ${outputs['quota-remaining']} left this month\n`,
    );
  });

  test('the pre-flight stops a run that would not fit above the reserve: the step fails with the reason, the run never starts', {
    timeout: 600_000,
  }, async ({ onTestFinished }) => {
    const result = await runComposite(action, {
      onTestFinished,
      inputs: { ...readmeInputs(), 'quota-reserve': '990', 'report-dir': 'reports/stopped' },
      actionPath: join(project, 'node_modules', ...pkg.name.split('/')),
      workspace: project,
      env: runner('schedule', offline()),
    });
    expect(result.steps.map((s) => [s.id, s.code])).toEqual([
      ['kit', 0],
      ['preflight', 3],
    ]);
    expect(result.code).toBe(3);
    expect(result.log).toMatch(
      /cls-contract: the run would not fit the test-key quota: the primary seller has 0 calls to spend \(X-RateLimit-Remaining \d+, 990 kept back by --quota-reserve\)/,
    );
    expect(result.summary).toMatch(/^## Contract tests: ⛔ stopped \(budget, exit 3\)/);
    expect(result.summary).toContain('**Stopped:** the run would not fit the test-key quota');
    expect(existsSync(join(project, 'reports', 'stopped', 'contract.json'))).toBe(false);
    expect(result.outputs['exit-code']).toBe('');
    noSecretIn(result);
  });

  test('a fork’s pull request, with empty secrets: the pre-flight stops with exit 2 naming the variables', {
    timeout: 600_000,
  }, async ({ onTestFinished }) => {
    const result = await runComposite(action, {
      onTestFinished,
      inputs: { 'base-url': server.url, 'report-dir': 'reports/fork' },
      actionPath: join(project, 'node_modules', ...pkg.name.split('/')),
      workspace: project,
      env: runner('pull_request', offline()),
    });
    expect(result.steps.map((s) => [s.id, s.code])).toEqual([
      ['kit', 0],
      ['preflight', 2],
    ]);
    expect(result.log).toContain(NO_CREDENTIAL);
    expect(result.summary).toMatch(/^## Contract tests: ⛔ stopped \(usage, exit 2\)/);
  });

  test('a failing run fails the step with the kit’s exit code, its outputs and summary still written: the action from the checkout, the kit from its tarballs', {
    timeout: 900_000,
  }, async ({ onTestFinished }) => {
    let proxy: FaultProxy | undefined;
    try {
      proxy = await startFaultProxy(upstreamOf(server), { faults: ['page_0_as_page_1'] });
      const workspace = mkdtempSync(join(work, 'checkout-'));
      const result = await runComposite(action, {
        onTestFinished,
        inputs: {
          ...readmeInputs(),
          'base-url': proxy.url,
          profile: 'full',
          args: '--phase negative --operation listWmsProducts',
          ledger: '',
          'token-file': '',
          package: tarballs.join(' '),
        },
        // As `uses: cls-api/contract/packages/contract-tests@v…` checks it out.
        actionPath: pkgDir,
        workspace,
        // npx installs the tarballs into its own cache, and their dependencies from the registry.
        env: runner('workflow_dispatch', {
          npm_config_prefer_offline: 'true',
          npm_config_cache: mkdtempSync(join(work, 'npm-cache-')),
        }),
      });
      expect(
        result.steps.map((s) => [s.id, s.code]),
        result.log,
      ).toEqual([
        ['kit', 0],
        ['preflight', 0],
        ['run', 1],
      ]);
      expect(result.code).toBe(1);
      expect(proxy.hits).toBeGreaterThan(0);
      const { outputs } = result;
      expect(outputs['exit-code']).toBe('1');
      expect(Number(outputs.failed)).toBeGreaterThan(0);
      const report = JSON.parse(readFileSync(join(workspace, outputs.report!), 'utf8'));
      expect(report.profile.name).toBe('full');
      const failures = report.cases.flatMap((c: { failures: Array<{ check: string; operation: string }> }) =>
        c.failures.map((f) => `${f.check} ${f.operation}`),
      );
      expect(failures).toContain('expected_outcome listWmsProducts');
      expect(result.summary).toMatch(/^## Contract tests: ❌ \d+ cases? failed/);
      expect(result.summary).toContain('expected_outcome · listWmsProducts');
      noSecretIn(result);
    } finally {
      await proxy?.close();
    }
  });
});
