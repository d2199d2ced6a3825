// Runs the built CLI (dist/cli.js) as `pnpm bench` does, into a temporary directory, and reads what it wrote.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Report } from '../src/report.js';

const cli = resolve(import.meta.dirname, '..', 'dist', 'cli.js');

export interface CliRun {
  exitCode: number | null;
  /** stdout and stderr, for a failed assertion's message. */
  output: string;
  report: Report;
  markdown: string;
  cleanup(): Promise<void>;
}

export async function runCli(args: string[]): Promise<CliRun> {
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-smoke-'));
  const child = spawn(
    process.execPath,
    [cli, ...args, '--out', join(dir, 'BENCHMARKS.md'), '--json', join(dir, 'bench.json')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const exitCode = await new Promise<number | null>((done) => child.once('close', done));
  try {
    return {
      exitCode,
      output,
      report: JSON.parse(await readFile(join(dir, 'bench.json'), 'utf8')) as Report,
      markdown: await readFile(join(dir, 'BENCHMARKS.md'), 'utf8'),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`the CLI wrote no report (exit ${exitCode}): ${(err as Error).message}\n${output}`);
  }
}
