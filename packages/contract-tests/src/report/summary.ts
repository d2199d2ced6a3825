// The report folder CI keeps: JUnit, JSON and a Markdown summary (for a job summary or a pull-request comment), written
// for every run, a run that stopped before its first case included: CI's upload steps then always have what to show.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadSpec } from '@cls-api/spec';
import type { StopReason } from './exit-codes.js';
import { RULES, type CoverageReport, type PairStatus } from '../matrix/coverage.js';
import { TOOL, toJUnit, type Report } from './report.js';

export interface ReportFiles {
  junit?: string;
  json?: string;
  summary?: string;
}

const MARK: Record<PairStatus, string> = {
  proven: '✅',
  failed: '❌',
  skipped: '⏭️',
  left_for_later: '🔁',
  not_reached: '·',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The run as Markdown: the verdict, what it spent, every failure grouped by check and operation, and the matrix. */
export function toMarkdown(report: Report): string {
  const t = report.totals;
  const verdict =
    report.exitCode === 0
      ? '✅ passed'
      : report.exitCode === 1
        ? `❌ ${t.failed} case${t.failed === 1 ? '' : 's'} failed`
        : `⛔ stopped (${report.stoppedBy ?? 'error'}, exit ${report.exitCode})`;
  const out = [
    `## Contract tests: ${verdict}`,
    '',
    `${report.spec.title} ${report.spec.version} against \`${report.baseUrl}\` · seed ${report.seed}${report.profile ? ` · profile ${report.profile.name}` : ''}`,
    '',
    `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped, ${t.departures} provisional departures · ${report.requests.sent} requests (${report.requests.metered} with test keys)`,
  ];
  if (report.error) out.push('', `**Stopped:** ${report.error}`);
  const failures = new Map<string, { count: number; expected: string; seen: string; curl?: string }>();
  for (const c of report.cases)
    for (const f of c.failures) {
      const key = `${f.check} · ${f.operation}`;
      const g = failures.get(key);
      if (g) g.count += 1;
      else failures.set(key, { count: 1, expected: f.expected, seen: f.seen, ...(f.curl ? { curl: f.curl } : {}) });
    }
  if (failures.size > 0) {
    out.push('', '### Failures', '', '| check · operation | × | expected | seen |', '|---|---|---|---|');
    for (const [key, g] of failures) out.push(`| ${cell(key)} | ${g.count} | ${cell(g.expected)} | ${cell(g.seen)} |`);
  }
  if (report.ledger) {
    const l = report.ledger;
    out.push(
      '',
      l.stale.length === 0
        ? `Ledger: run ${l.run}; every pair proven within the last ${l.window} runs.`
        : `Ledger: run ${l.run}; **${l.stale.length} pairs not proven within the last ${l.window} runs**: ${l.stale.map((x) => `\`${x.pair}\``).join(', ')}.`,
    );
  }
  if (report.coverage) out.push('', ...coverageMarkdown(report.coverage));
  return `${out.join('\n')}\n`;
}

function coverageMarkdown(coverage: CoverageReport): string[] {
  const t = coverage.totals;
  const byOp = new Map<string, Map<string, PairStatus>>();
  for (const p of coverage.pairs) {
    const row = byOp.get(p.operation) ?? new Map<string, PairStatus>();
    row.set(p.rule, p.status);
    byOp.set(p.operation, row);
  }
  const lines = [
    '### Coverage',
    '',
    `${t.proven} of ${t.pairs} (operation, rule) pairs proven, ${t.failed} failed, ${t.skipped} skipped, ${t.left_for_later} left for later runs, ${t.not_reached} not reached.`,
    '',
    '<details><summary>The matrix</summary>',
    '',
    `| operation | ${coverage.rules.map((r) => r.replace(/^code:/, '')).join(' | ')} |`,
    `|---|${coverage.rules.map(() => ':-:').join('|')}|`,
    ...[...byOp].map(
      ([op, row]) => `| ${op} | ${coverage.rules.map((r) => (row.has(r) ? MARK[row.get(r)!] : '')).join(' | ')} |`,
    ),
    '',
    `✅ proven · ❌ failed · ⏭️ skipped · 🔁 left for a later run · \`·\` not reached · blank: the rule does not apply. ${Object.entries(
      RULES,
    )
      .map(([rule, what]) => `**${rule}**: ${what}`)
      .join('; ')}; a code column: the operation answers that code where its rule says.`,
    '',
    '</details>',
  ];
  return lines;
}

/** Writes whichever of the three files were asked for. */
export function writeReportFiles(report: Report, files: ReportFiles): void {
  const write = (file: string | undefined, text: () => string) => {
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text());
  };
  write(files.junit, () => toJUnit(report));
  write(files.json, () => `${JSON.stringify(report, null, 2)}\n`);
  write(files.summary, () => toMarkdown(report));
}

/**
 * The report of a run that stopped before it could start (a usage or credential error found before any request):
 * no case ran, and the one failing JUnit case names what to fix.
 */
export function stoppedReport(
  stoppedBy: StopReason,
  error: string,
  exitCode: Report['exitCode'],
  baseUrl = '',
): Report {
  const { info } = loadSpec();
  return {
    tool: TOOL,
    spec: { title: info.title, version: info.version },
    baseUrl,
    seed: 0,
    phases: [],
    startedAt: new Date().toISOString(),
    durationMs: 0,
    options: {
      readOnly: false,
      probeLimits: false,
      examplesOnly: false,
      target: 'server',
      tags: [],
      operations: [],
      quotaReserve: 0,
      runs: 0,
      strictProvisional: false,
    },
    totals: { cases: 0, passed: 0, failed: 0, skipped: 0, failures: 0, departures: 0 },
    requests: { sent: 0, metered: 0, gatewayRetries: 0 },
    quota: {},
    checks: [],
    cases: [],
    departures: [],
    exitCode,
    error,
    stoppedBy,
    errorCodes: [],
  };
}

/**
 * The report files named on a command line that could not be parsed (a missing --base-url, an unknown option): the
 * run still leaves its report where CI looks for it.
 */
export function reportFilesFromArgv(argv: string[]): ReportFiles {
  const files: ReportFiles = {};
  for (const [i, arg] of argv.entries()) {
    for (const name of ['junit', 'json', 'summary'] as const) {
      if (arg === `--${name}` && argv[i + 1] !== undefined) files[name] = argv[i + 1]!;
      else if (arg.startsWith(`--${name}=`)) files[name] = arg.slice(name.length + 3);
    }
  }
  return files;
}
