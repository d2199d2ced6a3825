// The benchmark run: the scenarios one after another, then BENCHMARKS.md (and, on request, JSON). The command
// (cli.ts) loads this module once its options are read.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContract, type Context } from './context.js';
import { cpuTicks, gitState, loadAverage, machineInfo, stolenShare } from './machine.js';
import { SCENARIO_TITLES, type BenchOptions, type ScenarioName } from './options.js';
import { procfsAvailable } from './processes.js';
import { renderMarkdown, type Report, type Results } from './report.js';
import { runBodies } from './scenarios/bodies.js';
import { runBundle } from './scenarios/bundle.js';
import { runClient } from './scenarios/client.js';
import { runDraft } from './scenarios/draft.js';
import { runGet } from './scenarios/get.js';
import { runPipeline } from './scenarios/pipeline.js';
import { runProfile } from './scenarios/profile.js';
import { runKit } from './scenarios/kit.js';
import { runScale } from './scenarios/scale.js';
import { runSilent } from './scenarios/silent.js';
import { evaluateTargets } from './targets.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** apps/bench → the repository root. */
export const repoRoot = resolve(packageDir, '..', '..');

const RUNNERS: { [K in ScenarioName]: (ctx: Context) => Promise<NonNullable<Results[K]>> } = {
  get: runGet,
  scale: runScale,
  draft: runDraft,
  bodies: runBodies,
  client: runClient,
  bundle: runBundle,
  profile: runProfile,
  pipeline: runPipeline,
  kit: runKit,
  silent: runSilent,
};

export interface BenchRun {
  report: Report;
  markdown: string;
  outFile: string;
}

/** Runs the chosen scenarios, writes the report, and returns it. A failed scenario is reported, not thrown. */
export async function runBench(
  options: BenchOptions,
  argv: string[] = [],
  log: (line: string) => void = console.log,
): Promise<BenchRun> {
  if (!procfsAvailable()) throw new Error('this harness reads server memory and CPU from /proc: run it on Linux');
  const started = new Date();
  const results: Results = { errors: {} };
  const ctx: Omit<Context, 'log'> = {
    settings: options.settings,
    spec: loadContract(),
    repoRoot,
    artefactsDir: join(packageDir, 'profiles'),
  };
  const machine = machineInfo(started);
  const ticksAtStart = cpuTicks();
  log(
    `bench: ${options.only.join(', ')}${options.quick ? ' (quick)' : ''} on ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAverage.join(' ')}`,
  );

  for (const name of options.only) {
    log(`\n== ${SCENARIO_TITLES[name]}`);
    const t0 = Date.now();
    try {
      const result = await RUNNERS[name]({ ...ctx, log: (line) => log(`[${name}] ${line}`) });
      (results as Record<ScenarioName, unknown>)[name] = result;
      log(`[${name}] done in ${Math.round((Date.now() - t0) / 1000)} s`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      results.errors[name] = message;
      log(`[${name}] FAILED: ${message}`);
    }
  }

  const finished = new Date();
  const report: Report = {
    title: 'Benchmarks',
    quick: options.quick,
    command: ['pnpm bench', ...argv].join(' '),
    machine,
    commit: gitState(repoRoot),
    scenarios: options.only,
    settings: options.settings,
    results,
    targets: evaluateTargets(results),
    finishedAt: finished.toISOString(),
    loadAverageAtEnd: loadAverage(),
    stolenShare: stolenShare(ticksAtStart, cpuTicks()),
    durationSec: (finished.getTime() - started.getTime()) / 1000,
  };
  const markdown = renderMarkdown(report);
  const outFile = resolve(options.out ?? join(repoRoot, 'BENCHMARKS.md'));
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, markdown);
  if (options.json) {
    await mkdir(dirname(resolve(options.json)), { recursive: true });
    await writeFile(resolve(options.json), `${JSON.stringify(report, null, 2)}\n`);
  }
  log('\nTargets:');
  for (const t of report.targets) log(`  ${t.status.padEnd(8)} ${t.target}: ${t.measured}`);
  log(`\nWrote ${outFile}`);
  return { report, markdown, outFile };
}
