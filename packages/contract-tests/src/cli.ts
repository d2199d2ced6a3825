#!/usr/bin/env node
// cls-contract: the kit's command line. Exit codes: EXIT_CODES in exit-codes.ts (the report's exitCode). Every run
// that names report files leaves them, a run stopped by a usage error included.
import { dirname, join } from 'node:path';
import { UsageError } from './plan/credentials.js';
import { formatMatrix } from './matrix/coverage.js';
import { type CliOptions, parseCli, USAGE } from './plan/options.js';
import { formatSummary } from './report/report.js';
import { runContractTests } from './run/run.js';
import { type ReportFiles, reportFilesFromArgv, stoppedReport, writeReportFiles } from './report/summary.js';

/** Writes the report of a run that stopped before it started, and says where. */
function stopped(files: ReportFiles, message: string, baseUrl?: string): void {
  if (!files.junit && !files.json && !files.summary) return;
  writeReportFiles(stoppedReport('usage', message, 2, baseUrl), files);
  for (const [kind, file] of Object.entries(files)) process.stderr.write(`${kind} report: ${file}\n`);
}

async function main(argv: string[]): Promise<number> {
  let cli: CliOptions;
  try {
    cli = parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`cls-contract: ${err.message}\n\n${USAGE}\n`);
      stopped(reportFilesFromArgv(argv), err.message);
      return 2;
    }
    throw err;
  }
  if (cli.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const files: ReportFiles = {
    ...(cli.junit ? { junit: cli.junit } : {}),
    ...(cli.json ? { json: cli.json } : {}),
    ...(cli.summary ? { summary: cli.summary } : {}),
  };
  try {
    const reportFile = cli.json ?? cli.junit ?? cli.summary;
    const report = await runContractTests({
      ...cli.run,
      // The bodies of the curl lines go beside the reports, in the folder CI uploads.
      ...(reportFile && !cli.run.artifactsDir ? { artifactsDir: join(dirname(reportFile), 'requests') } : {}),
      ...(cli.quiet ? {} : { log: (line: string) => process.stdout.write(`${line}\n`) }),
    });
    process.stdout.write(`${formatSummary(report)}\n`);
    if (cli.coverage && report.coverage) process.stdout.write(`\n${formatMatrix(report.coverage)}\n`);
    writeReportFiles(report, files);
    if (cli.junit) process.stdout.write(`JUnit report: ${cli.junit}\n`);
    if (cli.json) process.stdout.write(`JSON report: ${cli.json}\n`);
    if (cli.summary) process.stdout.write(`Markdown summary: ${cli.summary}\n`);
    return report.exitCode;
  } catch (err) {
    const message = err instanceof UsageError ? err.message : ((err as Error).stack ?? String(err));
    process.stderr.write(`cls-contract: ${message}\n`);
    stopped(files, message, cli.run.baseUrl);
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
