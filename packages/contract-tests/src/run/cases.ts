// The cases run one after another: each to its result, a skip or a failure of its own never ending the run; a lost
// connection does.
import { CaseContext, type CaseDef, type CaseResult, type RunEnv } from './case.js';
import { ContractGap } from '../contract/contract.js';
import { LIVE_READ_ONLY } from '../plan/environment.js';
import { BudgetSkip, ConnectionError, Skip } from './http.js';
import type { QuotaPlan } from '../plan/quota-plan.js';
import type { RunOptions } from '../plan/run-options.js';
import type { RunOutcome } from './outcome.js';

export async function runCases(
  env: RunEnv,
  selected: CaseDef[],
  options: RunOptions,
  quotaPlan: QuotaPlan | undefined,
  outcome: RunOutcome,
  log: (line: string) => void,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const def of outcome.fatal ? [] : selected) {
    const result = await runCase(env, def, options, quotaPlan, outcome);
    results.push(result);
    log(progressLine(result));
    if (outcome.fatal) break;
  }
  return results;
}

async function runCase(
  env: RunEnv,
  def: CaseDef,
  options: RunOptions,
  quotaPlan: QuotaPlan | undefined,
  outcome: RunOutcome,
): Promise<CaseResult> {
  const { transport } = env;
  const t = new CaseContext(env, def);
  const started = Date.now();
  const meteredBefore = transport.metered;
  const chargedBefore = transport.charged();
  let status: CaseResult['status'] = 'passed';
  let skipReason: string | undefined;
  try {
    if (def.writes && env.readOnly)
      throw new Skip(options.readOnly ? 'writes data: left out by --read-only' : LIVE_READ_ONLY);
    quotaPlan?.admit(def);
    await def.run(t);
    quotaPlan?.record(def, transport.metered - meteredBefore);
  } catch (err) {
    if (err instanceof Skip) {
      skipReason = err.message;
      status = 'skipped';
      if (err instanceof BudgetSkip) outcome.budgetSkipped ??= err.message;
    } else if (err instanceof ConnectionError) {
      outcome.fatal = { reason: 'unreachable', message: `connection lost: ${err.message}` };
      t.fail('connection', 'a response', err.message);
    } else if (err instanceof ContractGap) {
      t.fail('expected_outcome', 'the contract to describe what the check needs', err.message);
    } else {
      t.fail('kit_error', 'the case to run to its end', (err as Error).stack ?? String(err));
    }
  }
  if (t.failures.length > 0) status = 'failed';
  return {
    id: def.id,
    phase: def.phase,
    ...(def.concern ? { concern: def.concern } : {}),
    title: def.title,
    operations: def.operations,
    ...(def.reaches ? { reaches: def.reaches } : {}),
    status,
    failures: t.failures,
    departures: t.departures,
    notes: t.notes,
    requests: t.requests,
    metered: transport.metered - meteredBefore,
    charged: transport.charged() - chargedBefore,
    ms: Date.now() - started,
    ...(skipReason ? { skipReason } : {}),
    ...(t.coveredBy.length > 0 ? { coveredBy: t.coveredBy } : {}),
  };
}

function progressLine(r: CaseResult): string {
  const mark = r.status === 'passed' ? '✓' : r.status === 'failed' ? '✗' : '-';
  const departed =
    r.departures.length > 0
      ? `, ${r.departures.length} provisional departure${r.departures.length === 1 ? '' : 's'}`
      : '';
  const tail =
    r.status === 'skipped'
      ? ` (skipped: ${r.skipReason})`
      : r.status === 'failed'
        ? ` (${r.failures.length} failure${r.failures.length === 1 ? '' : 's'}${departed})`
        : departed
          ? ` (${departed.slice(2)})`
          : '';
  return `  ${mark} ${r.id} · ${r.requests} req${tail}`;
}
