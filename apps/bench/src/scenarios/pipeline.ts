// The pipeline as a contributor meets it: a fresh clone of the repository (never the working tree), dependencies
// from the local store only, then `pnpm build` cold (no turbo cache, no outputs) and again unchanged (turbo cache).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, type Context } from '../context.js';
import { gitState } from '../machine.js';
import { median } from '../stats.js';

export interface CommandRun {
  command: string;
  seconds: number;
  /** From turbo's summary line `Cached: N cached, M total`, when it printed one. */
  cached?: number;
  total?: number;
  fullTurbo: boolean;
}

export interface PipelineResult {
  commit: string;
  /** The working tree had changes that a clone does not have: they are not in this measurement. */
  workingTreeDirty: boolean;
  install: CommandRun;
  cold: CommandRun;
  warm: CommandRun[];
  /** Median wall time of the unchanged runs. */
  warmSeconds: number;
}

function runCommand(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutSec: number,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 2_000_000) output = output.slice(-1_000_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutSec * 1000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const line = `${command} ${args.join(' ')}`;
      if (code !== 0) {
        reject(new Error(`\`${line}\` failed (${signal ?? code}) after ${fmt(seconds, 1)} s:\n${output.slice(-4000)}`));
        return;
      }
      // Turbo's summary: "Cached:    12 cached, 12 total".
      const cached = /Cached:\s+(\d+) cached, (\d+) total/.exec(output);
      resolve({
        command: line,
        seconds,
        ...(cached ? { cached: Number(cached[1]), total: Number(cached[2]) } : {}),
        fullTurbo: /FULL TURBO/.test(output),
      });
    });
  });
}

export async function runPipeline(ctx: Context): Promise<PipelineResult> {
  const { settings, log, repoRoot } = ctx;
  const s = settings.pipeline;
  const state = gitState(repoRoot);
  if (!state) throw new Error(`${repoRoot} is not a git repository: the pipeline is measured on a clone`);
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-clone-'));
  const clone = join(dir, 'repo');
  // Only what a contributor's shell would have: no turbo or pnpm state of this process leaks into the clone.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CI: '1',
    TURBO_TELEMETRY_DISABLED: '1',
    REDOCLY_TELEMETRY: 'off',
    FORCE_COLOR: '0',
  };
  try {
    log(
      `cloning ${state.commit.slice(0, 12)} into ${clone}${state.dirty ? ' (the working tree has uncommitted changes; they are not measured)' : ''}…`,
    );
    await runCommand('git', ['clone', '--quiet', repoRoot, clone], dir, env, 600);
    log('pnpm install --frozen-lockfile --offline…');
    const install = await runCommand(
      'pnpm',
      ['install', '--frozen-lockfile', '--offline'],
      clone,
      env,
      s.installTimeoutSec,
    );
    log(`installed in ${fmt(install.seconds, 1)} s`);
    // A clone has neither; removed anyway, so that "cold" cannot depend on how the clone was made.
    for (const cache of ['.turbo', join('node_modules', '.cache', 'turbo')]) {
      if (existsSync(join(clone, cache))) await rm(join(clone, cache), { recursive: true, force: true });
    }
    log('cold pnpm build…');
    const cold = await runCommand('pnpm', ['build'], clone, env, s.buildTimeoutSec);
    log(`cold build: ${fmt(cold.seconds, 1)} s (${cold.cached ?? '?'} of ${cold.total ?? '?'} tasks cached)`);
    const warm: CommandRun[] = [];
    for (let i = 1; i <= s.warmRuns; i++) {
      const run = await runCommand('pnpm', ['build'], clone, env, s.buildTimeoutSec);
      warm.push(run);
      log(
        `unchanged build ${i}/${s.warmRuns}: ${fmt(run.seconds, 2)} s${run.fullTurbo ? ' (FULL TURBO)' : ` (${run.cached ?? '?'} of ${run.total ?? '?'} cached)`}`,
      );
    }
    return {
      commit: state.commit,
      workingTreeDirty: state.dirty,
      install,
      cold,
      warm,
      warmSeconds: median(warm.map((r) => r.seconds)),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
