// The run's report, from its results and what the run learned on the way.
import type { CaseResult, Phase, RunEnv } from './case.js';
import { CHECKS } from '../contract/checks.js';
import { LIVE_READ_ONLY } from '../plan/environment.js';
import { coverageMatrix, isolatedIn } from '../matrix/coverage.js';
import type { ProfilePlan } from '../plan/profile.js';
import type { QuotaPlan } from '../plan/quota-plan.js';
import { buildReport, type Authentication, type Report } from '../report/report.js';
import type { RunOptions } from '../plan/run-options.js';
import type { RunCredentials } from './credentials.js';
import type { RunOutcome } from './outcome.js';
import type { SandboxReport } from './sandbox.js';

export interface RunFacts {
  env: RunEnv;
  options: RunOptions;
  startedAt: Date;
  phases: Phase[];
  profilePlan: ProfilePlan;
  environment: RunCredentials['environment'];
  outcome: RunOutcome;
  authentication?: Authentication;
  quotaPlan?: QuotaPlan;
  sandbox?: SandboxReport;
}

export function assembleReport(facts: RunFacts, results: CaseResult[]): Report {
  const { env, options, outcome, authentication, quotaPlan, environment } = facts;
  return buildReport({
    contract: env.contract,
    options,
    seed: env.seed,
    phases: facts.phases,
    startedAt: facts.startedAt,
    results,
    tally: env.tally,
    transport: env.transport,
    checks: CHECKS,
    ...(outcome.fatal ? { fatal: outcome.fatal } : {}),
    ...(authentication ? { authentication } : {}),
    ...(quotaPlan ? { leftOutByQuota: quotaPlan.leftOut } : {}),
    profile: facts.profilePlan,
    codesSeen: env.observations.codes,
    environment: {
      ...(environment.name !== undefined ? { name: environment.name } : {}),
      writes: !env.readOnly,
      ...(env.readOnly && !options.readOnly
        ? { leftOutAsLive: results.filter((r) => r.skipReason === LIVE_READ_ONLY).map((r) => r.id) }
        : {}),
    },
    records: env.records.report(),
    ...(facts.sandbox ? { sandbox: facts.sandbox } : {}),
    coverage: coverageMatrix({
      contract: env.contract,
      results,
      evidence: env.evidence,
      isolated: isolatedIn(env),
      ...(facts.profilePlan.leftForLater ? { leftForLater: facts.profilePlan.leftForLater } : {}),
      ...(outcome.fatal ? { stopped: outcome.fatal.reason } : {}),
    }),
  });
}
