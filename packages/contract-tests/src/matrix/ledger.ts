// The ledger: across runs, when each (operation, rule) pair was last proven, in one JSON file the CI keeps (its
// cache). A pr run takes the cases whose pairs were proven longest ago (profile.ts), whatever the run numbers; the
// summary names every pair not proven within the last PR_ROTATION runs.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../plan/credentials.js';
import type { CoverageReport } from './coverage.js';

export const LEDGER_VERSION = 1;

export interface Ledger {
  version: number;
  /** Runs recorded so far (runs that stopped before their cases are not). */
  runs: number;
  /** Per pair (`operation rule`): the run that last proved it, and when. */
  pairs: Record<string, { run: number; at: string }>;
  /**
   * Per case: the run it last ran in (passed or failed), and the calls of the quota it spent then, by the service's
   * count (CaseResult.charged).
   */
  cases: Record<string, LedgerCase>;
}

export interface LedgerCase {
  run: number;
  cost: number;
  /** The pairs this case proved when it last ran (what a pr run may count on it to prove again). */
  proves?: string[];
  /** The operations through which it created records when it last ran (what a case that `needs` them can count on). */
  makes?: string[];
}

export interface LedgerSummary {
  file: string;
  /** This run's number in the ledger. */
  run: number;
  /** Pairs the contract makes applicable that no run of the last `window` proved: never, or since `lastRun`. */
  stale: Array<{ pair: string; lastRun?: number }>;
  window: number;
}

export function emptyLedger(): Ledger {
  return { version: LEDGER_VERSION, runs: 0, pairs: {}, cases: {} };
}

/** The ledger in `file`; an empty one when the file does not exist yet (the first run of a CI cache). */
export function readLedger(file: string): Ledger {
  if (!existsSync(file)) return emptyLedger();
  let parsed: Partial<Ledger>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Ledger>;
  } catch (err) {
    throw new UsageError(
      `--ledger ${file} is not a ledger this kit wrote (${(err as Error).message}): remove it to start afresh`,
    );
  }
  if (parsed.version !== LEDGER_VERSION || typeof parsed.runs !== 'number')
    throw new UsageError(`--ledger ${file} is not a version ${LEDGER_VERSION} ledger: remove it to start afresh`);
  return { version: LEDGER_VERSION, runs: parsed.runs, pairs: parsed.pairs ?? {}, cases: parsed.cases ?? {} };
}

/** The ledger after this run: its proven pairs and its slot, under the next run number. */
export function recordRun(
  ledger: Ledger,
  coverage: CoverageReport,
  results: ReadonlyArray<{ id: string; status: string; charged: number }>,
  at: Date,
  madeBy: (caseId: string) => string[] = () => [],
): Ledger {
  const run = ledger.runs + 1;
  const pairs = { ...ledger.pairs };
  for (const p of coverage.pairs)
    if (p.status === 'proven') pairs[`${p.operation} ${p.rule}`] = { run, at: at.toISOString() };
  const cases = { ...ledger.cases };
  const proves = new Map<string, string[]>();
  for (const p of coverage.pairs) {
    if (p.status !== 'proven') continue;
    for (const id of p.cases) proves.set(id, [...(proves.get(id) ?? []), `${p.operation} ${p.rule}`]);
  }
  for (const r of results) {
    if (r.status === 'skipped') continue;
    const makes = madeBy(r.id);
    cases[r.id] = {
      run,
      cost: r.charged,
      ...(proves.has(r.id) ? { proves: proves.get(r.id) } : {}),
      ...(makes.length > 0 ? { makes } : {}),
    };
  }
  return { version: LEDGER_VERSION, runs: run, pairs, cases };
}

/** The pairs of this contract no run of the last `window` proved. */
export function stalePairs(ledger: Ledger, coverage: CoverageReport, window: number): LedgerSummary['stale'] {
  const out: LedgerSummary['stale'] = [];
  for (const p of coverage.pairs) {
    const key = `${p.operation} ${p.rule}`;
    const last = ledger.pairs[key];
    if (!last) {
      if (ledger.runs >= window) out.push({ pair: key });
    } else if (ledger.runs - last.run >= window) out.push({ pair: key, lastRun: last.run });
  }
  return out;
}

/** Written whole or not at all: a run killed while writing leaves the previous ledger. */
export function writeLedger(file: string, ledger: Ledger): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(ledger, null, 2)}\n`);
  renameSync(partial, file);
}
