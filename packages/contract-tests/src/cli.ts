#!/usr/bin/env node
// cls-contract: the kit's command line. Exit codes: EXIT_CODES in exit-codes.ts (the report's exitCode).
import { dirname, join } from 'node:path';
import { UsageError } from './credentials.js';
import { type CliOptions, parseCli, USAGE } from './options.js';
import { formatSummary, writeReport } from './report.js';
import { runContractTests } from './run.js';

async function main(argv: string[]): Promise<number> {
  let cli: CliOptions;
  try {
    cli = parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`cls-contract: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (cli.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const reportFile = cli.json ?? cli.junit;
    const report = await runContractTests({
      ...cli.run,
      // The bodies of the curl lines go beside the reports, in the folder CI uploads.
      ...(reportFile && !cli.run.artifactsDir ? { artifactsDir: join(dirname(reportFile), 'requests') } : {}),
      ...(cli.quiet ? {} : { log: (line: string) => process.stdout.write(`${line}\n`) }),
    });
    process.stdout.write(`${formatSummary(report)}\n`);
    writeReport(report, { ...(cli.junit ? { junit: cli.junit } : {}), ...(cli.json ? { json: cli.json } : {}) });
    if (cli.junit) process.stdout.write(`JUnit report: ${cli.junit}\n`);
    if (cli.json) process.stdout.write(`JSON report: ${cli.json}\n`);
    return report.exitCode;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`cls-contract: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`cls-contract: ${(err as Error).stack ?? String(err)}\n`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cls-contract: ${String(err)}\n`);
    process.exitCode = 2;
  },
);
