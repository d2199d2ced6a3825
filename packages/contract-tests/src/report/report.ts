// The report: a JSON-friendly object, a console rendering (summary tables and every failure with a curl line),
// and JUnit XML for any CI.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CaseResult, CheckTally, Departure, Failure, Phase } from '../run/case.js';
import type { CheckInfo } from '../contract/checks.js';
import type { Contract } from '../contract/contract.js';
import type { CoverageReport } from '../matrix/coverage.js';
import type { LedgerSummary } from '../matrix/ledger.js';
import { EXIT_CODE_OF_STOP, type ExitCode, type StopReason } from './exit-codes.js';
import type { QuotaUse, Transport } from '../run/http.js';
import type { CodeSighting } from '../run/observations.js';
import { unreachableReason } from '../phases/codes.js';
import { formatRecords, type RecordsReport } from '../run/records.js';
import type { SandboxReport } from '../run/sandbox.js';
import type { ProfilePlan } from '../plan/profile.js';
import type { RunOptions, Target } from '../plan/run-options.js';

export interface Report {
  tool: { name: string; version: string };
  spec: { title: string; version: string };
  baseUrl: string;
  seed: number;
  phases: Phase[];
  startedAt: string;
  durationMs: number;
  options: {
    readOnly: boolean;
    probeLimits: boolean;
    examplesOnly: boolean;
    /** `mock` with --target mock or --examples-only: a stateless server. */
    target: Target;
    /** How the run found the target to be a stateless mock, when it was not told. */
    detectedMock?: string;
    tags: string[];
    operations: string[];
    maxRequests?: number;
    maxQuota?: number;
    quotaReserve: number;
    runs: number;
    strictProvisional: boolean;
  };
  /** `departures`: provisional departures, reported apart; failures only under --strict-provisional. */
  totals: { cases: number; passed: number; failed: number; skipped: number; failures: number; departures: number };
  requests: { sent: number; metered: number; gatewayRetries: number };
  /** Per seller: the quota the service counted (X-RateLimit-Remaining) and the kit's own count. */
  quota: Record<string, QuotaUse>;
  checks: Array<CheckInfo & CheckTally>;
  cases: CaseResult[];
  /** Every provisional departure of every case, with the case and phase it came from. */
  departures: ReportDeparture[];
  /** See EXIT_CODES (exit-codes.ts): 0 passed, 1 contract failures, 2 usage or credentials, 3 unreachable or no budget. */
  exitCode: ExitCode;
  /** Why the run stopped early (wrong base URL, server unreachable or connection lost, budget spent before any case). */
  error?: string;
  stoppedBy?: StopReason;
  /**
   * Present when the server took a made-up key: it does not authenticate, so every credential case fails for that
   * one reason (listed in `cases`; their failures stay in `cases[].failures`).
   */
  authentication?: Authentication & { cases: string[] };
  /**
   * The environment of the credentials (environment.ts) and whether the run wrote there; with a live key and no
   * --allow-live-writes, the writing cases it left out.
   */
  environment?: { name?: string; writes: boolean; leftOutAsLive?: string[] };
  /** The records the run created, what it removed and what it left, with where (records.ts). */
  records?: RecordsReport;
  /** Whether the server offers the sandbox's helpers, and the resets the run made with them (run/sandbox.ts). */
  sandbox?: SandboxReport;
  /** With `--max-quota`: the cases the quota plan left out because their expected calls did not fit (quota-plan.ts). */
  leftOutByQuota?: string[];
  /** The profile (`full`, `pr`); for pr, the slot of this run and the metered cases it covered and left for later. */
  profile?: ProfilePlan;
  /** Every code of the error catalogue: reached (the status and area seen, where) or, with the reason, not. */
  errorCodes: ErrorCodeReach[];
  /** Every (operation, rule) pair the contract makes applicable, and what this run did with it (matrix/coverage.ts). */
  coverage?: CoverageReport;
  /** With --ledger: this run's number in it, and the pairs no run of the last `window` proved. */
  ledger?: LedgerSummary;
}

export interface ErrorCodeReach {
  code: string;
  /** The catalogue's status and areas (`x-http-status`, `x-areas`). */
  status: number;
  areas: string[];
  /** Where the run first met it: the status and area it came with (a wrong one also fails error_code_documented). */
  reached?: CodeSighting;
  /** Not reached: out of a test key's reach (`unreachable`), or why the cases that drive there did not get there. */
  reason?: string;
  unreachable?: boolean;
}

export interface Authentication {
  authenticates: false;
  /** The operation the made-up key was sent to, the status it got, and how to reproduce it. */
  operation: string;
  status: number;
  curl: string;
  message: string;
}

export interface ReportFailure extends Failure {
  case: string;
  phase: Phase;
}

/**
 * Failures of one check on one operation, or (`check` 'authentication') every failure of the credential cases of a
 * server that does not authenticate: how the console shows them, one entry each.
 */
export interface FailureGroup {
  check: string;
  operation: string;
  count: number;
  cases: string[];
  first: ReportFailure;
}

export function groupFailures(report: Pick<Report, 'cases' | 'authentication'>): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  const unauthenticated = new Set(report.authentication?.cases ?? []);
  for (const c of report.cases) {
    for (const f of c.failures) {
      const together = unauthenticated.has(c.id);
      const key = together ? 'authentication' : `${f.check}\u0000${f.operation}`;
      const g = groups.get(key);
      if (g) {
        g.count += 1;
        if (!g.cases.includes(c.id)) g.cases.push(c.id);
        // The example shown for the credential cases is the status they expected, not a knock-on finding.
        if (together && g.first.check !== 'expected_outcome' && f.check === 'expected_outcome')
          g.first = { case: c.id, phase: c.phase, ...f };
      } else {
        groups.set(key, {
          check: together ? 'authentication' : f.check,
          operation: together ? 'every operation that needs a credential' : f.operation,
          count: 1,
          cases: [c.id],
          first: { case: c.id, phase: c.phase, ...f },
        });
      }
    }
  }
  // The authentication entry first: it explains the others' absence.
  return [...groups.values()].sort(
    (a, b) => Number(b.check === 'authentication') - Number(a.check === 'authentication'),
  );
}

export interface ReportDeparture extends Departure {
  case: string;
  phase: Phase;
}

/** Departures of one check on one operation: how the console and JUnit show them. */
export interface DepartureGroup {
  check: string;
  operation: string;
  count: number;
  cases: string[];
  first: ReportDeparture;
}

export function groupDepartures(departures: ReportDeparture[]): DepartureGroup[] {
  const groups = new Map<string, DepartureGroup>();
  for (const d of departures) {
    const key = `${d.check}\u0000${d.operation}`;
    const g = groups.get(key);
    if (g) {
      g.count += 1;
      if (!g.cases.includes(d.case)) g.cases.push(d.case);
    } else {
      groups.set(key, { check: d.check, operation: d.operation, count: 1, cases: [d.case], first: d });
    }
  }
  return [...groups.values()];
}

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};
export const TOOL = { name: pkg.name, version: pkg.version };

export function buildReport(input: {
  contract: Contract;
  options: RunOptions;
  seed: number;
  phases: Phase[];
  startedAt: Date;
  results: CaseResult[];
  tally: Map<string, CheckTally>;
  transport: Transport;
  checks: readonly CheckInfo[];
  fatal?: { reason: StopReason; message: string };
  authentication?: Authentication;
  leftOutByQuota?: string[];
  profile?: ProfilePlan;
  codesSeen?: ReadonlyMap<string, CodeSighting>;
  environment?: Report['environment'];
  records?: RecordsReport;
  sandbox?: SandboxReport;
  coverage?: CoverageReport;
}): Report {
  const { results, options } = input;
  const redact = (s: string) => input.transport.options.redactor.redact(s);
  const failedCases = results.filter((r) => r.status === 'failed').length;
  const known = new Set(input.checks.map((c) => c.name));
  const checks: Array<CheckInfo & CheckTally> = input.checks.map((c) => ({
    ...c,
    ...(input.tally.get(c.name) ?? { evaluated: 0, failed: 0, departed: 0 }),
  }));
  for (const [name, t] of input.tally) {
    if (!known.has(name)) checks.push({ name, kind: 'case', description: name, ...t });
  }
  const report: Report = {
    tool: TOOL,
    spec: { title: input.contract.doc.info.title, version: input.contract.doc.info.version },
    baseUrl: redact(options.baseUrl),
    seed: input.seed,
    phases: input.phases,
    startedAt: input.startedAt.toISOString(),
    durationMs: Date.now() - input.startedAt.getTime(),
    options: {
      readOnly: options.readOnly ?? false,
      probeLimits: options.probeLimits ?? false,
      examplesOnly: options.examplesOnly ?? false,
      target: options.target ?? (options.examplesOnly ? 'mock' : 'server'),
      ...(options.detectedMock ? { detectedMock: options.detectedMock } : {}),
      tags: options.tags ?? [],
      operations: options.operations ?? [],
      ...(options.maxRequests !== undefined ? { maxRequests: options.maxRequests } : {}),
      ...(input.transport.options.maxQuota !== undefined ? { maxQuota: input.transport.options.maxQuota } : {}),
      quotaReserve: input.transport.options.quotaReserve,
      runs: Math.max(1, options.runs ?? 1),
      strictProvisional: options.strictProvisional ?? false,
    },
    totals: {
      cases: results.length,
      passed: results.filter((r) => r.status === 'passed').length,
      failed: failedCases,
      skipped: results.filter((r) => r.status === 'skipped').length,
      failures: results.reduce((n, r) => n + r.failures.length, 0),
      departures: results.reduce((n, r) => n + r.departures.length, 0),
    },
    requests: {
      sent: input.transport.sent,
      metered: input.transport.metered,
      gatewayRetries: input.transport.gatewayRetries,
    },
    quota: input.transport.quotaSummary(),
    checks,
    // Secrets never leave the run: every text of every case passes the redactor.
    cases: JSON.parse(redact(JSON.stringify(results))) as CaseResult[],
    departures: JSON.parse(
      redact(JSON.stringify(results.flatMap((r) => r.departures.map((d) => ({ case: r.id, phase: r.phase, ...d }))))),
    ) as ReportDeparture[],
    exitCode: input.fatal ? EXIT_CODE_OF_STOP[input.fatal.reason] : failedCases > 0 ? 1 : 0,
    ...(input.fatal ? { error: redact(input.fatal.message), stoppedBy: input.fatal.reason } : {}),
    ...(input.authentication
      ? {
          authentication: {
            ...input.authentication,
            cases: results.filter((r) => r.concern === 'authentication' && r.status === 'failed').map((r) => r.id),
          },
        }
      : {}),
    ...(input.leftOutByQuota ? { leftOutByQuota: input.leftOutByQuota } : {}),
    ...(input.profile ? { profile: input.profile } : {}),
    errorCodes: errorCodeReach(
      input.contract,
      input.phases,
      results,
      input.codesSeen ?? new Map(),
      Boolean(options.expiredToken),
      input.fatal,
    ),
    ...(input.environment ? { environment: input.environment } : {}),
    ...(input.records ? { records: input.records } : {}),
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    ...(input.coverage ? { coverage: input.coverage } : {}),
  };
  return report;
}

function errorCodeReach(
  contract: Contract,
  phases: Phase[],
  results: CaseResult[],
  seen: ReadonlyMap<string, CodeSighting>,
  expiredToken: boolean,
  stopped?: { reason: StopReason; message: string },
): ErrorCodeReach[] {
  return [...contract.catalog].map(([code, entry]) => {
    const base = { code, status: entry.status, areas: entry.areas };
    const reached = seen.get(code);
    if (reached) return { ...base, reached };
    const unreachable = unreachableReason(contract, code, phases.includes('probes'), expiredToken);
    if (unreachable) return { ...base, reason: unreachable, unreachable: true };
    // A run that stopped early reached nothing more: that is why, not the run's selection.
    if (stopped) return { ...base, reason: `the run stopped before any case met it (${stopped.reason})` };
    const meant = results.filter((r) => r.reaches?.includes(code));
    const why = meant.map((r) =>
      r.status === 'skipped' ? `${r.id} skipped: ${r.skipReason}` : `${r.id} ${r.status} without meeting it`,
    );
    return {
      ...base,
      reason:
        why.length > 0
          ? why.join('; ')
          : 'no case of this run met it (phases, filters or --read-only left out the cases that drive there)',
    };
  });
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r, ri) => {
    const line = r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
    return ri === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
  });
}

/** The console summary: cases per phase, checks, every failure with its reproduction, calls spent. */
export function formatSummary(report: Report): string {
  const out: string[] = [];
  out.push('');
  out.push('Summary by phase');
  const phaseRows: string[][] = [['phase', 'cases', 'passed', 'failed', 'skipped', 'requests']];
  for (const phase of report.phases) {
    const cs = report.cases.filter((c) => c.phase === phase);
    phaseRows.push([
      phase,
      String(cs.length),
      String(cs.filter((c) => c.status === 'passed').length),
      String(cs.filter((c) => c.status === 'failed').length),
      String(cs.filter((c) => c.status === 'skipped').length),
      String(cs.reduce((n, c) => n + c.requests, 0)),
    ]);
  }
  out.push(...table(phaseRows));
  out.push('');
  out.push('Checks');
  const checkRows: string[][] = [['check', 'evaluated', 'failed', 'provisional']];
  for (const c of report.checks) {
    if (c.evaluated === 0 && c.failed === 0 && c.departed === 0) continue;
    checkRows.push([c.name, String(c.evaluated), String(c.failed), String(c.departed)]);
  }
  out.push(...table(checkRows));

  if (report.authentication) {
    out.push('');
    out.push(authenticationBanner(report.authentication));
  }
  const failureGroups = groupFailures(report);
  if (failureGroups.length > 0) {
    out.push('');
    out.push(
      `Failures (${report.totals.failures} in ${failureGroups.length} group${failureGroups.length === 1 ? '' : 's'} by check and operation; every one is in the JSON report)`,
    );
    failureGroups.forEach((g, i) => {
      const f = g.first;
      out.push('');
      out.push(
        `${i + 1}) [${g.check}] ${g.operation} · ${g.count}× · ${g.cases.slice(0, 3).join(', ')}${g.cases.length > 3 ? `, … (${g.cases.length} cases)` : ''}`,
      );
      if (g.check === 'authentication') out.push('   why:      the server took a made-up key (see above)');
      out.push(`   expected: ${f.expected}${g.count > 1 ? `  (first of ${g.count}: ${f.case})` : ''}`);
      out.push(`   seen:     ${f.seen}`);
      if (f.curl) out.push(`   reproduce: ${f.curl}`);
    });
  }
  const groups = groupDepartures(report.departures);
  if (groups.length > 0) {
    out.push('');
    out.push(
      `Provisional (${report.totals.departures} departure${report.totals.departures === 1 ? '' : 's'} from our designs, ${
        report.options.strictProvisional
          ? 'counted as failures: --strict-provisional'
          : 'not failures; --strict-provisional counts them'
      })`,
    );
    groups.forEach((g, i) => {
      out.push('');
      out.push(
        `${i + 1}) [${g.check}] ${g.operation} · ${g.count}× · ${g.cases.slice(0, 3).join(', ')}${g.cases.length > 3 ? ', …' : ''}`,
      );
      out.push(`   expected: ${g.first.expected}`);
      out.push(`   seen:     ${g.first.seen}`);
      out.push(`   reason:   ${g.first.reason}`);
      if (g.first.curl) out.push(`   reproduce: ${g.first.curl}`);
    });
  }
  if (report.errorCodes.length > 0) {
    const reached = report.errorCodes.filter((c) => c.reached);
    out.push('');
    out.push(`Error codes (${reached.length} of ${report.errorCodes.length} in the catalogue reached)`);
    for (const c of report.errorCodes) {
      if (c.reached) out.push(`  ✓ ${c.code} · ${c.reached.status} in ${c.reached.area} · ${c.reached.operation}`);
      else out.push(`  - ${c.code} · ${c.unreachable ? 'not reachable' : 'not reached'}: ${c.reason}`);
    }
  }
  const skipped = report.cases.filter((c) => c.status === 'skipped');
  if (skipped.length > 0) {
    const reasons = new Map<string, number>();
    for (const c of skipped) reasons.set(c.skipReason ?? '', (reasons.get(c.skipReason ?? '') ?? 0) + 1);
    out.push('');
    out.push('Skipped');
    for (const [reason, n] of reasons) out.push(`  ${n} × ${reason}`);
  }
  const covered = report.cases.filter((c) => c.coveredBy !== undefined && c.requests === 0);
  if (covered.length > 0) {
    out.push('');
    out.push(
      `Proven by another case: ${covered.length} case${covered.length === 1 ? '' : 's'} sent nothing, their rule already proven in this run by another request: the same shared parameter or path-parameter kind, a request example, or a record the run made (JSON: cases[].coveredBy)`,
    );
    for (const c of covered.slice(0, 10)) out.push(`  = ${c.id} · by ${c.coveredBy!.join(', ')}`);
    if (covered.length > 10) out.push('  … all in the JSON report');
  }
  const leftOut = report.leftOutByQuota ?? [];
  if (leftOut.length > 0) {
    const shown = leftOut.slice(0, 10).join(', ');
    out.push(
      `  Left out to fit the quota budget (${report.options.maxQuota} calls): ${leftOut.length} case${leftOut.length === 1 ? '' : 's'} (${shown}${leftOut.length > 10 ? ', … all in the JSON report' : ''})`,
    );
  }
  if (report.options.target === 'mock') {
    out.push('');
    out.push(
      `Target: a stateless mock${report.options.detectedMock ? ` (${report.options.detectedMock}; --target mock says so up front)` : ''}. Checks that need state (a record created then read back, pages across a list, rows stored or refused by the storage stage, seller isolation, the workflows) are not applicable: stateless server. The quota plan is off: a mock has no quota. Each example is asked for with Prefer.`,
    );
  }
  const profile = report.profile;
  if (profile?.name === 'full' && report.cases.length > 0) {
    out.push('');
    out.push(
      `Test keys: ${profile.needTestKey.length} of ${report.cases.length} cases spend test-key quota (JSON: profile.needTestKey); the others run with no credential, a refused one, or the JWT`,
    );
  }
  if (profile?.name === 'pr' && profile.covered !== undefined) {
    out.push('');
    const how =
      profile.slots !== undefined
        ? `slot ${profile.slot! + 1} of ${profile.slots} (seed ${report.seed} mod ${profile.slots}; ${profile.slots} consecutive seeds cover them all, and --ledger FILE turns the rotation by what was proven longest ago)`
        : 'the cases whose pairs the ledger shows proven longest ago';
    out.push(
      `Profile pr: ${how} · covered ${profile.covered.length} case${profile.covered.length === 1 ? '' : 's'} that spend test-key quota, left ${profile.leftForLater!.length} for later runs (--profile full runs every one)`,
    );
    out.push(`  covered: ${profile.covered.join(', ') || 'none'}`);
  }
  const live = report.environment?.leftOutAsLive ?? [];
  if (live.length > 0)
    out.push(
      `  ${report.environment?.name ?? 'live'} environment, read-only: ${live.length} writing case${live.length === 1 ? '' : 's'} left out (--allow-live-writes sends them)`,
    );
  if (report.records && (report.records.created > 0 || (report.environment?.writes && !report.options.examplesOnly))) {
    out.push('');
    out.push(...formatRecords(report.records));
  }
  // Said only of a server that offers them: against any other the run is as it always was.
  if (report.sandbox?.offered) {
    out.push(
      `Sandbox helpers: offered (${report.sandbox.why}): the test clock for RETURN_CANCEL_EXPIRED, a reset at the end`,
    );
    for (const r of report.sandbox.resets ?? [])
      out.push(
        r.error !== undefined
          ? `  ${r.seller} seller: the reset failed: ${r.error}`
          : `  ${r.seller} seller: reset, ${
              Object.entries(r.removed ?? {})
                .filter(([, n]) => n > 0)
                .map(([kind, n]) => `${kind} ${n}`)
                .join(', ') || 'nothing'
            } removed`,
      );
  }
  if (report.coverage) {
    const t = report.coverage.totals;
    out.push('');
    out.push(
      `Coverage: ${t.proven} of ${t.pairs} (operation, rule) pairs proven, ${t.failed} failed, ${t.skipped} skipped, ${t.left_for_later} left for later runs, ${t.not_reached} not reached (--coverage prints the matrix; JSON: coverage)`,
    );
    const ledger = report.ledger;
    if (ledger) {
      out.push(
        ledger.stale.length === 0
          ? `Ledger ${ledger.file}: run ${ledger.run}; every pair proven within the last ${ledger.window} runs`
          : `Ledger ${ledger.file}: run ${ledger.run}; ${ledger.stale.length} pair${ledger.stale.length === 1 ? '' : 's'} not proven within the last ${ledger.window} runs: ${ledger.stale
              .slice(0, 8)
              .map((s) => `${s.pair} (${s.lastRun === undefined ? 'never' : `last run ${s.lastRun}`})`)
              .join(', ')}${ledger.stale.length > 8 ? ', … (JSON: ledger.stale)' : ''}`,
      );
    }
  }
  out.push('');
  if (report.error) out.push(`Stopped: ${report.error}`);
  const quota = Object.entries(report.quota)
    .filter(([, q]) => q.remaining !== undefined)
    .map(([seller, q]) => {
      const counted = q.service
        ? `, the service counted ${q.service.used} (X-RateLimit-Remaining ${q.service.before} → ${q.service.after})${quotaComparison(q)}`
        : '';
      return `${seller} seller: ${q.remaining} of ${q.limit ?? '?'} left this month${counted}`;
    })
    .join('; ');
  out.push(
    `${report.totals.passed} passed, ${report.totals.failed} failed, ${report.totals.skipped} skipped, ${report.totals.departures} provisional · calls spent: ${report.requests.sent} (${report.requests.metered} sent with test keys, ${report.requests.gatewayRetries} gateway retries)${quota ? ` · ${quota}` : ''} · seed ${report.seed}`,
  );
  return out.join('\n');
}

/**
 * The service's count beside the kit's: the same; explained by the refused answers (401/403, which the service does
 * not meter); more than the kit sent (a failure, `quota_counted`); or a gap the kit cannot account for.
 */
export function quotaComparison(q: QuotaUse): string {
  if (!q.service) return '';
  const sent = `the kit sent ${q.kitCountedInSpan} test-key call${q.kitCountedInSpan === 1 ? '' : 's'} over the same span`;
  if (q.overcounted) return `; ${sent}: the service counted ${q.service.used - q.kitCountedInSpan} more than were sent`;
  if (q.differs) return `; ${sent}, ${q.refusedInSpan} of them answered 401/403: they differ by ${q.gap}`;
  if (q.service.used === q.kitCountedInSpan) return `; ${sent}: the same`;
  const unmetered = q.kitCountedInSpan - q.service.used;
  return `; ${sent}: ${unmetered} ${unmetered === 1 ? 'answer was' : 'answers were'} 401/403, which are not metered`;
}

/** Said once, where a reader of the summary looks first. */
export function authenticationBanner(a: Authentication & { cases: string[] }): string {
  const bar = '!'.repeat(78);
  return [
    bar,
    `!! ${a.message}`,
    `!! ${a.cases.length} credential case${a.cases.length === 1 ? '' : 's'} failed for this reason: one entry below.`,
    `!! reproduce: ${a.curl}`,
    bar,
  ].join('\n');
}

function xml(s: string): string {
  return (
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // Control characters other than tab and newline are not allowed in XML 1.0.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
  );
}

/**
 * JUnit XML: one testsuite per phase, one testcase per case, each failure with its curl reproduction; then a
 * `provisional` testsuite, one testcase per check and operation that departed from a design, each `<skipped>` with
 * the reason (never a `<failure>`: under --strict-provisional the failures are in the phase suites).
 */
export function toJUnit(report: Report): string {
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const groups = groupDepartures(report.departures);
  lines.push(
    `<testsuites name="${xml(`${report.tool.name} ${report.spec.title} ${report.spec.version}`)}" tests="${report.totals.cases + groups.length + (report.error ? 1 : 0)}" failures="${report.totals.failed + (report.error ? 1 : 0)}" skipped="${report.totals.skipped + groups.length}" errors="0" time="${(report.durationMs / 1000).toFixed(3)}">`,
  );
  for (const phase of report.phases) {
    const cs = report.cases.filter((c) => c.phase === phase);
    const time = cs.reduce((n, c) => n + c.ms, 0) / 1000;
    lines.push(
      `  <testsuite name="${xml(phase)}" tests="${cs.length}" failures="${cs.filter((c) => c.status === 'failed').length}" skipped="${cs.filter((c) => c.status === 'skipped').length}" errors="0" time="${time.toFixed(3)}" timestamp="${xml(report.startedAt)}">`,
    );
    lines.push(
      `    <properties><property name="base_url" value="${xml(report.baseUrl)}"/><property name="seed" value="${report.seed}"/></properties>`,
    );
    for (const c of cs) {
      lines.push(
        `    <testcase classname="${xml(`${phase}.${c.operations.join('+')}`)}" name="${xml(c.id)}" time="${(c.ms / 1000).toFixed(3)}">`,
      );
      if (c.status === 'skipped') lines.push(`      <skipped message="${xml(c.skipReason ?? '')}"/>`);
      for (const f of c.failures) {
        const text = [`expected: ${f.expected}`, `seen: ${f.seen}`, ...(f.curl ? [`reproduce: ${f.curl}`] : [])].join(
          '\n',
        );
        lines.push(
          `      <failure type="${xml(f.check)}" message="${xml(`[${f.check}] ${f.operation}: expected ${f.expected}`)}">${xml(text)}</failure>`,
        );
      }
      if (c.notes.length > 0) lines.push(`      <system-out>${xml(c.notes.join('\n'))}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  // Always present, so that a CI dashboard shows the count even when it is 0.
  lines.push(
    `  <testsuite name="provisional" tests="${groups.length}" failures="0" skipped="${groups.length}" errors="0" time="0.000" timestamp="${xml(report.startedAt)}">`,
  );
  lines.push(
    `    <properties><property name="departures" value="${report.totals.departures}"/><property name="strict_provisional" value="${report.options.strictProvisional}"/></properties>`,
  );
  for (const g of groups) {
    const d = g.first;
    lines.push(
      `    <testcase classname="${xml(`provisional.${g.check}`)}" name="${xml(`${g.check} · ${g.operation}`)}" time="0.000">`,
    );
    lines.push(`      <skipped message="${xml(`${g.count}× ${d.reason}`)}"/>`);
    const text = [
      `expected: ${d.expected}`,
      `seen: ${d.seen}`,
      `reason: ${d.reason}`,
      `cases: ${g.cases.join(', ')}`,
      ...(d.curl ? [`reproduce: ${d.curl}`] : []),
    ].join('\n');
    lines.push(`      <system-out>${xml(text)}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>');
  if (report.error) {
    // A failing case, not only an error: every CI's test view counts and shows a failure.
    lines.push(
      `  <testsuite name="run" tests="1" failures="1" errors="0" skipped="0"><testcase classname="run" name="${xml(`the run stopped: ${report.stoppedBy ?? 'stopped'}`)}"><failure type="${xml(report.stoppedBy ?? 'stopped')}" message="${xml(report.error)}">${xml(report.error)}</failure></testcase></testsuite>`,
    );
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

export function writeReport(report: Report, files: { junit?: string; json?: string }): void {
  if (files.junit) {
    mkdirSync(dirname(files.junit), { recursive: true });
    writeFileSync(files.junit, toJUnit(report));
  }
  if (files.json) {
    mkdirSync(dirname(files.json), { recursive: true });
    writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  }
}
