// A composite GitHub Action run the way a runner runs one, for its shell steps: each `run:` in order with bash, its
// `env` given with `${{ inputs.… }}` and `${{ steps.<id>.outputs.… }}` filled in, fresh GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY and GITHUB_ENV files per step (read back after it, the summaries joined as the job shows
// them), GITHUB_ACTION_PATH naming the action's folder, and the first failing step ending the action. Anything else
// a runner would evaluate (`if:`, `uses:`, an expression in the script itself) is refused, so that what passes here
// is what the action says.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OnTestFinishedHandler } from 'vitest';
import { parse } from 'yaml';
import { bash } from './shell.js';

export interface CompositeStep {
  id?: string;
  name?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
  [key: string]: unknown;
}

export interface CompositeAction {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: CompositeStep[] };
}

export interface StepResult {
  id?: string;
  name?: string;
  code: number | null;
  output: string;
}

export interface ActionRun {
  steps: StepResult[];
  /** The action's outputs, as the calling workflow reads them (`steps.<id>.outputs.…`). */
  outputs: Record<string, string>;
  /** The job summary: every step's GITHUB_STEP_SUMMARY, in order. */
  summary: string;
  /** What the steps wrote to GITHUB_ENV: the rest of the caller's job would see it. */
  jobEnv: Record<string, string>;
  /** 0 when every step passed, else the failing step's code. */
  code: number | null;
  /** Every step's console output, for assertions on what a log shows. */
  log: string;
}

export const readAction = (file: string) => parse(readFileSync(file, 'utf8')) as CompositeAction;

/** `name=value` lines and `name<<DELIMITER` blocks, as GITHUB_OUTPUT and GITHUB_ENV take them. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      if (end < 0) throw new Error(`${block[1]}: no closing ${block[2]}`);
      out[block[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    } else if (line.trim() !== '') {
      throw new Error(`not a command file line: ${JSON.stringify(line)}`);
    }
  }
  return out;
}

const STEP_KEYS = new Set(['id', 'name', 'shell', 'env', 'run']);

/** Fills in `${{ inputs.x }}` and `${{ steps.id.outputs.x }}`; any other expression is an error. */
function evaluate(text: string, inputs: Record<string, string>, steps: Record<string, Record<string, string>>): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return inputs[input[1]!] ?? '';
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return steps[output[1]!]?.[output[2]!] ?? '';
    throw new Error(`the emulated runner does not evaluate \${{ ${expression} }}`);
  });
}

export async function runComposite(
  action: CompositeAction,
  options: {
    inputs: Record<string, string>;
    /** GITHUB_ACTION_PATH: where the runner has the action's files. */
    actionPath: string;
    /** The job's working directory, GITHUB_WORKSPACE. */
    workspace: string;
    /** The runner's environment: PATH, HOME, GITHUB_EVENT_NAME, GITHUB_RUN_NUMBER … */
    env: Record<string, string>;
    /** The running test's context hook: a step still running when the test ends is stopped (support/shell.ts). */
    onTestFinished: (fn: OnTestFinishedHandler) => void;
  },
): Promise<ActionRun> {
  if (action.runs.using !== 'composite') throw new Error(`not a composite action: ${action.runs.using}`);
  for (const name of Object.keys(options.inputs))
    if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = options.inputs[name] ?? spec.default ?? '';
    if (spec.required && value === '') throw new Error(`input ${name} is required`);
    inputs[name] = value;
  }
  const temp = mkdtempSync(join(tmpdir(), 'cls-runner-'));
  const steps: Record<string, Record<string, string>> = {};
  const results: StepResult[] = [];
  const jobEnv: Record<string, string> = {};
  let summary = '';
  let code: number | null = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    const extra = Object.keys(step).filter((k) => !STEP_KEYS.has(k));
    if (extra.length > 0)
      throw new Error(`step ${step.id ?? index}: the emulated runner does not do ${extra.join(', ')}`);
    if (step.shell !== 'bash') throw new Error(`step ${step.id ?? index}: shell ${step.shell}, not bash`);
    if (step.run!.includes('${{')) throw new Error(`step ${step.id ?? index}: an expression in the script itself`);
    const files = {
      GITHUB_OUTPUT: join(temp, `output-${index}`),
      GITHUB_STEP_SUMMARY: join(temp, `summary-${index}`),
      GITHUB_ENV: join(temp, `env-${index}`),
      GITHUB_PATH: join(temp, `path-${index}`),
    };
    for (const file of Object.values(files)) writeFileSync(file, '');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, evaluate(String(value), inputs, steps)]),
    );
    const res = await bash(
      step.run!,
      options.workspace,
      {
        ...options.env,
        ...jobEnv,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: options.workspace,
        GITHUB_ACTION_PATH: options.actionPath,
        RUNNER_TEMP: temp,
        ...files,
        ...stepEnv,
      },
      options.onTestFinished,
    );
    results.push({ ...(step.id ? { id: step.id } : {}), ...(step.name ? { name: step.name } : {}), ...res });
    if (step.id) steps[step.id] = parseCommandFile(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
    Object.assign(jobEnv, parseCommandFile(readFileSync(files.GITHUB_ENV, 'utf8')));
    summary += readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    if (res.code !== 0) {
      code = res.code;
      break;
    }
  }
  // A runner empties RUNNER_TEMP when the job ends.
  rmSync(temp, { recursive: true, force: true });
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, o]) => [name, evaluate(o.value, inputs, steps)]),
  );
  return {
    steps: results,
    outputs,
    summary,
    jobEnv,
    code,
    log: results.map((r) => `--- ${r.id ?? r.name}: exit ${r.code}\n${r.output}`).join('\n'),
  };
}
