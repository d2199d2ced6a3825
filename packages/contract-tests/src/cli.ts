#!/usr/bin/env node
// cls-contract: the kit's command line. Exit codes: EXIT_CODES in exit-codes.ts (the report's exitCode). Every run
// that names report files leaves them, a run stopped by a usage error included.
import { dirname, join } from 'node:path';
import { UsageError } from './plan/credentials.js';
import { formatMatrix } from './matrix/coverage.js';
import { EXIT_CODE_OF_STOP, type StopReason } from './report/exit-codes.js';
import { type CliOptions, parseCli, USAGE } from './plan/options.js';
import { preflightStop, runPreflight } from './plan/preflight.js';
import { formatSummary, type Report } from './report/report.js';
import { runContractTests } from './run/run.js';
import { type ReportFiles, reportFilesFromArgv, stoppedReport, writeReportFiles } from './report/summary.js';

/** Writes the report of a run that stopped before it started, and says where. */
function stopped(
  files: ReportFiles,
  message: string,
  baseUrl?: string,
  reason: StopReason = 'usage',
  quota: Report['quota'] = {},
): void {
  if (!files.junit && !files.json && !files.summary) return;
  writeReportFiles({ ...stoppedReport(reason, message, EXIT_CODE_OF_STOP[reason], baseUrl), quota }, files);
  for (const [kind, file] of Object.entries(files)) process.stderr.write(`${kind} report: ${file}\n`);
}

/**
 * `--preflight`: no case, only whether the run fits the test-key quota left. A run that would not fit stops as one
 * whose budget ran out before its first case (exit 3), its report files written so that CI shows why.
 */
async function preflight(cli: CliOptions, files: ReportFiles): Promise<number> {
  try {
    const result = await runPreflight(cli.run);
    process.stdout.write(`${result.lines.join('\n')}\n`);
    if (result.fits) return 0;
    process.stderr.write(`cls-contract: ${result.message}\n`);
    stopped(files, result.message!, cli.run.baseUrl, 'budget', result.quota);
    return EXIT_CODE_OF_STOP.budget;
  } catch (err) {
    const stop = preflightStop(err);
    if (!stop) throw err;
    process.stderr.write(`cls-contract: ${stop.message}\n`);
    stopped(files, stop.message, cli.run.baseUrl, stop.reason);
    return EXIT_CODE_OF_STOP[stop.reason];
  }
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
  if (cli.preflight) return preflight(cli, files);
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
