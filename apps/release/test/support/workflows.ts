// The GitHub Actions workflows of .github/workflows/ as the tests read and run them: their shell (`run`) steps, each
// run as written by bash as a runner runs it, with its `env` and the `${{ secrets.… }}` it names given by the test.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../../src/repo.js';

export const workflowsDir = join(repoRoot(import.meta.dirname), '.github', 'workflows');

export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
export type Workflow = { on: unknown; jobs: Record<string, { steps: Step[] }> };

export const workflow = (file: string) => parse(readFileSync(join(workflowsDir, file), 'utf8')) as Workflow;

/** The workflow's shell steps, job after job, in order. */
export const runSteps = (file: string) =>
  Object.values(workflow(file).jobs).flatMap((j) => (j.steps ?? []).filter((s) => typeof s.run === 'string'));

/** The step's `env` with each `${{ secrets.NAME }}` replaced by `secrets[NAME]`; any other expression is refused. */
function stepEnv(step: Step, secrets: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [
      name,
      value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
        const secret = /^secrets\.(\w+)$/.exec(expression)?.[1];
        if (!secret || secrets[secret] === undefined) {
          throw new Error(`step "${step.name}": the test gives no value for \${{ ${expression} }}`);
        }
        return secrets[secret];
      }),
    ]),
  );
}

/** Runs the step's script as a runner does (`bash -eo pipefail`), in `cwd`, over `env` and the step's own `env`. */
export function runStep(
  step: Step,
  cwd: string,
  env: NodeJS.ProcessEnv,
  secrets: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
    cwd,
    encoding: 'utf8',
    env: { ...env, ...stepEnv(step, secrets) },
    timeout: 900_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}
