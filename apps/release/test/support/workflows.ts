// The GitHub Actions workflows of .github/workflows/ as the tests read and run them: their shell (`run`) steps, each
// run as written by bash as a runner runs it, with its `env` and the expressions it names (`${{ secrets.NPM_TOKEN }}`,
// `${{ steps.pages.outputs.base_url }}`) given by the test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../../src/repo.js';

export const workflowsDir = join(repoRoot(import.meta.dirname), '.github', 'workflows');

export interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}
export interface Job {
  if?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  environment?: string | { name: string; url?: string };
  outputs?: Record<string, string>;
  steps: Step[];
}
export type Workflow = { on: unknown; permissions?: Record<string, string>; jobs: Record<string, Job> };

export const workflow = (file: string) => parse(readFileSync(join(workflowsDir, file), 'utf8')) as Workflow;

/** The workflow's shell steps, job after job (or of one job), in order. */
export const runSteps = (file: string, job?: string) =>
  Object.entries(workflow(file).jobs)
    .filter(([name]) => job === undefined || name === job)
    .flatMap(([, j]) => (j.steps ?? []).filter((s) => typeof s.run === 'string'));

/** The step's `env` with each `${{ expression }}` replaced by `values[expression]`; one the test does not give fails. */
function stepEnv(step: Step, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [
      name,
      value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
        if (values[expression] === undefined) {
          throw new Error(`step "${step.name}": the test gives no value for \${{ ${expression} }}`);
        }
        return values[expression];
      }),
    ]),
  );
}

/**
 * Runs the step's script as a runner does (`bash -eo pipefail`), in `cwd`, over `env` and the step's own `env`, the
 * expressions there given by `values` (`{ 'secrets.NPM_TOKEN': token }`). Its `$GITHUB_OUTPUT` is a file of its own,
 * read back as `outputs`.
 */
export function runStep(
  step: Step,
  cwd: string,
  env: NodeJS.ProcessEnv,
  values: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string; outputs: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'cls-step-'));
  const outputFile = join(dir, 'output');
  writeFileSync(outputFile, '');
  const res = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
    cwd,
    encoding: 'utf8',
    env: { ...env, GITHUB_OUTPUT: outputFile, ...stepEnv(step, values) },
    timeout: 900_000,
  });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  rmSync(dir, { recursive: true, force: true });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr, outputs };
}
