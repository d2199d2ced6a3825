// A pr run with a ledger, once the cases it chose have run: the quota the service says is left (the chosen cases'
// costs were estimates, some high) goes to the cases left for later, chosen as the first were, in waves until none
// fits. What a wave runs is no longer left for later in the report.
import type { CaseDef, CaseResult, RunEnv } from './case.js';
import { coverageMatrix, isolatedIn } from '../matrix/coverage.js';
import type { Ledger } from '../matrix/ledger.js';
import { prTopUp, type ProfilePlan } from '../plan/profile.js';

export async function topUp(
  env: RunEnv,
  standby: CaseDef[],
  ledger: Ledger,
  plan: ProfilePlan,
  results: CaseResult[],
  run: (cases: CaseDef[]) => Promise<CaseResult[]>,
  log: (line: string) => void,
): Promise<CaseResult[]> {
  const added: CaseResult[] = [];
  let left = standby;
  for (;;) {
    const room = env.transport.quotaLeft();
    if (left.length === 0 || !Number.isFinite(room) || room <= 0) break;
    const coverage = coverageMatrix({
      contract: env.contract,
      results: [...results, ...added],
      evidence: env.evidence,
      isolated: isolatedIn(env),
    });
    const proven = new Set(coverage.pairs.filter((p) => p.status === 'proven').map((p) => `${p.operation} ${p.rule}`));
    const wave = prTopUp(env, left, ledger, room, { proven, made: new Set(env.records.made()) });
    if (wave.length === 0) break;
    log(
      `  + ${wave.length} case${wave.length === 1 ? '' : 's'} left for later fit the ${room} calls of the pr quota still left`,
    );
    const taken = new Set(wave.map((c) => c.id));
    left = left.filter((c) => !taken.has(c.id));
    plan.covered = [...(plan.covered ?? []), ...taken];
    plan.leftForLater = (plan.leftForLater ?? []).filter((id) => !taken.has(id));
    plan.needTestKey = [...plan.needTestKey, ...taken];
    const ran = await run(wave);
    added.push(...ran);
    // A wave whose cases all were left out again spent nothing: another would choose the same.
    if (ran.every((r) => r.status === 'skipped')) break;
  }
  return added;
}
