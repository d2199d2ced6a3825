// The README's CI configurations, tested as written: each YAML block is parsed, held to what the kit reads and
// writes (the environment variables, the JUnit file uploaded, a quota budget), and its shell lines are run with a
// shell, the secrets set as environment variables, against the reference server, with `npx @cls-api/contract-tests`
// resolving to this package's built command in a project that has it installed, offline.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, type OnTestFinishedHandler, test } from 'vitest';
import { parse } from 'yaml';
import { UsageError } from '../src/plan/credentials.js';
import { parseCli } from '../src/plan/options.js';
import { kitVariables, referenceServers, type TestServer } from './support/servers.js';
import { bash } from './support/shell.js';

const pkgDir = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
};
const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8');

/** The README's YAML blocks, by the file name in their first line (`# .gitlab-ci.yml`). */
function yamlBlocks(): Map<string, { text: string; value: Record<string, unknown> }> {
  const out = new Map<string, { text: string; value: Record<string, unknown> }>();
  for (const m of readme.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)) {
    const text = m[1]!;
    const name = /^# (\S+)/.exec(text)?.[1];
    if (name) out.set(name, { text, value: parse(text) as Record<string, unknown> });
  }
  return out;
}

const servers = referenceServers();

/**
 * A server of the test's own (`own`: its own database and clock), with the contract's gateway: the two CI flows run
 * at once, and a server shared would have one's set-up move the clock under the other's run. Closed with the test.
 */
async function ownServer(onTestFinished: (fn: () => Promise<void>) => void): Promise<TestServer> {
  const server = await servers.start({ gateway: 'contract', own: true });
  onTestFinished(() => server.close());
  return server;
}

/**
 * Whether the kit reads `name`: the parsed command line differs (or becomes a usage error) when that variable
 * alone is left out of `env`.
 */
function kitReads(name: string, env: Record<string, string>): boolean {
  const parsed = (e: Record<string, string>) => {
    try {
      return JSON.stringify(parseCli([], e));
    } catch (err) {
      if (err instanceof UsageError) return `usage: ${err.message}`;
      throw err;
    }
  };
  const without = { ...env };
  delete without[name];
  return parsed(without) !== parsed(env);
}

/**
 * A partner's project with the kit installed: `node_modules/@cls-api/contract-tests` is this package, and the
 * package's bins are on `node_modules/.bin`, so `npx` finds it there and never asks the registry.
 */
function partnerProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cls-ci-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'partner-ci', private: true, dependencies: { [pkg.name]: `file:${pkgDir}` } }),
  );
  const installed = join(dir, 'node_modules', ...pkg.name.split('/'));
  mkdirSync(dirname(installed), { recursive: true });
  symlinkSync(pkgDir, installed, 'dir');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const [bin, file] of Object.entries(pkg.bin)) {
    const shim = join(dir, 'node_modules', '.bin', bin);
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(installed, file)}" "$@"\n`);
    chmodSync(shim, 0o755);
  }
  return dir;
}

/** Runs one shell step as the CI would, in the partner's project. */
function shell(
  script: string,
  cwd: string,
  env: Record<string, string>,
  onTestFinished: (fn: OnTestFinishedHandler) => void,
) {
  return bash(
    script,
    cwd,
    {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: cwd,
      // Offline: a registry lookup would fail the step, so a pass proves npx used the installed kit.
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      npm_config_cache: join(cwd, '.npm'),
      ...env,
    },
    onTestFinished,
  );
}

/** The value of `--flag VALUE` in a command line. */
function flag(command: string, name: string): string | undefined {
  return new RegExp(`${name}\\s+"?([^\\s"\\\\]+)`).exec(command)?.[1];
}

function expectJUnit(file: string): void {
  expect(existsSync(file), file).toBe(true);
  const xml = readFileSync(file, 'utf8');
  expect(xml.startsWith('<?xml')).toBe(true);
  expect(xml).toMatch(/<testsuites [^>]*failures="0"/);
  expect(xml).toContain('<testsuite name="workflows"');
}

describe('the README shows working CI configurations', () => {
  test('both blocks are there', () => {
    expect([...yamlBlocks().keys()]).toEqual(
      expect.arrayContaining(['.github/workflows/contract.yml', '.gitlab-ci.yml']),
    );
  });

  // A whole kit run through a shell: minutes on a busy machine.
  // The two flows at once, each on a server of its own: each waits on its run's pace far more than it works.
  test.concurrent('GitHub Actions: secrets as environment variables the kit reads, a quota budget, the JUnit file uploaded; its run step passes as written', {
    timeout: 600_000,
  }, async ({ expect, onTestFinished }) => {
    const block = yamlBlocks().get('.github/workflows/contract.yml')!;
    const jobs = block.value.jobs as Record<string, { steps: Array<Record<string, unknown>> }>;
    const steps = Object.values(jobs)[0]!.steps;
    const runSteps = steps.filter((s) => typeof s.run === 'string');
    expect(runSteps.length).toBe(1);
    const step = runSteps[0]!;
    const command = String(step.run);
    expect(command).toContain(`npx --yes ${pkg.name}`);
    // GitHub expressions go in `env`, never in the shell line: the secrets are environment variables.
    expect(command).not.toContain('${{');
    expect(flag(command, '--max-quota')).toMatch(/^\d+$/);
    const junit = flag(command, '--junit')!;
    expect(junit).toBeDefined();

    const server = await ownServer(onTestFinished);
    const variables = kitVariables(server);
    const env: Record<string, string> = { GITHUB_RUN_NUMBER: '7' };
    for (const [name, value] of Object.entries(step.env as Record<string, string>)) {
      const m = /^\$\{\{ (secrets|vars)\.([A-Z0-9_]+) \}\}$/.exec(value);
      expect(m, `${name}: ${value}`).not.toBeNull();
      if (m![1] === 'secrets') expect(name).not.toBe('CLS_BASE_URL');
      // The secret or variable named like the kit's variable holds its value.
      expect(variables[m![2]!], `${m![1]}.${m![2]}`).toBeDefined();
      env[name] = variables[m![2]!]!;
    }
    expect(Object.keys(env).sort()).toEqual(['GITHUB_RUN_NUMBER', ...Object.keys(variables)].sort());
    for (const name of Object.keys(variables)) expect(kitReads(name, variables), name).toBe(true);

    // The upload runs when the run failed too, and takes the JUnit file.
    const upload = steps.find((s) => String(s.uses ?? '').startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    const uploaded = String((upload.with as { path: string }).path);
    expect(junit === uploaded || junit.startsWith(uploaded.endsWith('/') ? uploaded : `${uploaded}/`)).toBe(true);

    // Both profiles, as the events choose them: a pull request (pr), then the schedule (full), in one checkout,
    // so that the second run reads the first run's token from the cached folder.
    const cache = (
      block.value.jobs as Record<string, { steps: Array<{ uses?: string; with?: { path?: string } }> }>
    ).contract!.steps.find((s) => String(s.uses ?? '').startsWith('actions/cache@'));
    expect(command).toContain(`--save-token ${cache?.with?.path}/`);
    const dir = partnerProject();
    for (const [event, profile] of [
      ['pull_request', 'pr'],
      ['schedule', 'full'],
    ] as const) {
      const r = await shell(command, dir, { ...env, GITHUB_EVENT_NAME: event }, onTestFinished);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain('seed 7');
      expectJUnit(join(dir, junit));
      const report = JSON.parse(readFileSync(join(dir, flag(command, '--json')!), 'utf8'));
      expect(report.profile.name).toBe(profile);
      expect(report.options.maxQuota).toBe(profile === 'pr' ? 15 : Number(flag(command, '--max-quota')));
      expect(existsSync(join(dir, cache!.with!.path!, 'token'))).toBe(true);
      if (profile === 'full')
        expect(report.cases.some((c: { id: string }) => c.id.endsWith('/expired_token'))).toBe(true);
    }
  });

  // A whole kit run through a shell: minutes on a busy machine.
  test.concurrent('GitLab CI: the variables it names are the kit’s, a quota budget, artifacts:reports:junit; its script passes as written', {
    timeout: 600_000,
  }, async ({ expect, onTestFinished }) => {
    const block = yamlBlocks().get('.gitlab-ci.yml')!;
    const job = Object.values(block.value)[0] as {
      script: string[];
      cache: { paths: string[] };
      artifacts: { when: string; paths: string[]; reports: { junit: string } };
    };
    const command = job.script.join('\n');
    expect(command).toContain(`npx --yes ${pkg.name}`);
    expect(flag(command, '--max-quota')).toMatch(/^\d+$/);
    const junit = flag(command, '--junit')!;
    expect(job.artifacts.reports.junit).toBe(junit);
    expect(job.artifacts.when).toBe('always');

    const server = await ownServer(onTestFinished);
    const variables = kitVariables(server);
    const named = /^# CI\/CD variables: (.+)$/m.exec(block.text)![1]!.split(/\s+/);
    expect(named.sort()).toEqual(Object.keys(variables).sort());
    for (const name of named) expect(kitReads(name, variables), name).toBe(true);

    expect(command).toContain(`--save-token ${job.cache.paths[0]}`);
    const dir = partnerProject();
    // GitLab runs a job's script lines in one shell, one after another.
    for (const [source, profile] of [
      ['merge_request_event', 'pr'],
      ['schedule', 'full'],
    ] as const) {
      const r = await shell(
        command,
        dir,
        { ...variables, CI_PIPELINE_IID: '12', CI_PIPELINE_SOURCE: source },
        onTestFinished,
      );
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain('seed 12');
      expectJUnit(join(dir, junit));
      const report = JSON.parse(readFileSync(join(dir, flag(command, '--json')!), 'utf8'));
      expect(report.profile.name).toBe(profile);
    }
  });
});
