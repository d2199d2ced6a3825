#!/usr/bin/env node
// `pnpm bench`: runs the scenarios one after another and writes BENCHMARKS.md (and, on request, JSON).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOptions, USAGE, UsageError, type BenchOptions } from './options.js';

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  let options: BenchOptions;
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  try {
    options = parseOptions(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  // The run's modules load once the options are read: the scenarios load the reference server, the kit, the client
  // and their dependencies, over a CPU-second, which --help and a wrong option need not wait for.
  const [{ runBench }, { stopAll }] = await Promise.all([import('./bench.js'), import('./processes.js')]);
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error('\ninterrupted: stopping the servers…');
    void stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { report } = await runBench(options, argv);
    return Object.keys(report.results.errors).length > 0 ? 1 : 0;
  } finally {
    await stopAll();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
