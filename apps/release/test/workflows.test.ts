// The GitHub Actions workflows of .github/workflows/ (CI, release, deploying the docs site on each release): each
// passes the workflow linter (action-validator), and each shell step runs as written, in a copy of this checkout
// (its files as git lists them), with two substitutions a runner needs none of: `npm install -g pnpm@…` checks the
// pnpm on PATH is that version instead of installing it over the machine's, and the registry is read offline, from
// the store this checkout was installed from. The release's publish and push steps run as written in
// test/registry.test.ts, against its throwaway registry and a local remote. The steps that cannot run here say why.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/repo.js';
import { runStep, runSteps, type Step, workflow, workflowsDir } from './support/workflows.js';

const root = repoRoot(import.meta.dirname);
const pnpmVersion = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager.split('@')[1]!;
const validator = join(
  dirname(createRequire(import.meta.url).resolve('@action-validator/cli/package.json')),
  'cli.mjs',
);

const work = mkdtempSync(join(tmpdir(), 'cls-workflows-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function lint(file: string): { status: number | null; output: string } {
  const res = spawnSync(process.execPath, [validator, file], { encoding: 'utf8' });
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

/** A copy of the checkout's files (tracked, and new ones git would add), as a runner's checkout has them. */
function checkoutCopy(): string {
  const dir = join(work, 'checkout');
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  }).stdout.split('\0');
  for (const file of listed.filter(Boolean)) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  return dir;
}

/** `npm install -g pnpm@X` on a machine that has pnpm X: check it, install nothing. Any other npm command is npm's. */
function npmShim(): string {
  const bin = join(work, 'bin');
  mkdirSync(bin, { recursive: true });
  const realNpm = spawnSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(
    join(bin, 'npm'),
    `#!/usr/bin/env bash
if [ "$1 $2" = "install -g" ] && [[ "$3" == pnpm@* ]]; then
  have="$(pnpm --version)"
  [ "pnpm@$have" = "$3" ] || { echo "npm shim: the step asks for $3, this machine has pnpm $have" >&2; exit 1; }
  exit 0
fi
exec "${realNpm}" "$@"
`,
  );
  chmodSync(join(bin, 'npm'), 0o755);
  return bin;
}

function runAsWritten(step: Step, cwd: string, bin: string): void {
  const res = runStep(step, cwd, {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    CI: 'true',
    npm_config_offline: 'true',
    TURBO_TELEMETRY_DISABLED: '1',
  });
  expect(res.status, `step "${step.name}" exited ${res.status}:\n${res.stdout}${res.stderr}`).toBe(0);
}

describe('the workflows', () => {
  it('are the three, and each passes the workflow linter', () => {
    expect(readdirSync(workflowsDir).sort()).toEqual(['ci.yml', 'deploy-site.yml', 'release.yml']);
    for (const file of readdirSync(workflowsDir)) {
      const { status, output } = lint(join(workflowsDir, file));
      expect(status, `${file}: ${output}`).toBe(0);
    }
  });

  it('the linter refuses a workflow with a misspelled key, so a pass means something', () => {
    const broken = join(work, 'broken.yml');
    writeFileSync(broken, readFileSync(join(workflowsDir, 'ci.yml'), 'utf8').replace('runs-on:', 'runs_on:'));
    const { status, output } = lint(broken);
    expect(status).toBe(1);
    expect(output).toContain("Additional property 'runs_on' is not allowed");
  });

  it('CI runs the repository entry point, .ci/run, in Debian with Node 20 as root', () => {
    // Not run here: .ci/run is what runs this very test (a clean install, then `pnpm test`).
    expect(runSteps('ci.yml').map((s) => s.run!.trim())).toEqual(['.ci/run']);
    expect(existsSync(join(root, '.ci', 'run'))).toBe(true);
    const job = Object.values(workflow('ci.yml').jobs)[0] as unknown as { container: string };
    expect(job.container).toMatch(/^node:20-bookworm$/);
  });

  it('release versions and publishes with pnpm release, and pushes the commit and tag it makes', () => {
    const steps = runSteps('release.yml');
    expect(steps.map((s) => s.name)).toEqual([
      'Install',
      'Version, publish and tag',
      'Push the version commit and the tag',
    ]);
    // The publish and push steps run as written in test/registry.test.ts (a throwaway registry, a local remote);
    // the install step is the deploy workflow's, run below.
    expect(steps[1]!.run).toMatch(/^pnpm release$/m);
    expect(steps[1]!.env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{ secrets\.NPM_TOKEN \}\}$/);
    expect(steps[2]!.run!.trim()).toBe('git push --follow-tags origin HEAD:main');
    expect(steps[0]!.run).toBe(runSteps('deploy-site.yml')[0]!.run);
    expect(steps[0]!.run).toContain(`npm install -g pnpm@${pnpmVersion}`);
  });

  it('deploy-site builds the site and assembles the static site, each step as written', { timeout: 900_000 }, () => {
    expect(workflow('deploy-site.yml').on).toMatchObject({ push: { tags: ['v*'] } });
    const checkout = checkoutCopy();
    const bin = npmShim();
    for (const step of runSteps('deploy-site.yml')) runAsWritten(step, checkout, bin);
    const site = join(checkout, '_site');
    expect(readdirSync(site).sort()).toEqual(['404.html', 'index.html', 'llms-full.txt', 'llms.txt', 'openapi.json']);
    expect(readFileSync(join(site, '404.html'), 'utf8')).toBe(readFileSync(join(site, 'index.html'), 'utf8'));
    expect(readFileSync(join(site, 'llms.txt'), 'utf8')).toMatch(/^# /);
  });
});
