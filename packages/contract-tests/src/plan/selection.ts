// Which cases a run holds: the phases asked for, in the run's order, narrowed to the operations or tags given and
// to the profile's slot.
import { PHASES, type CaseDef, type Phase, type RunEnv } from '../run/case.js';
import type { Contract } from '../contract/contract.js';
import { bulkCases } from '../phases/bulk.js';
import { exampleCases } from '../phases/examples.js';
import { generatedCases } from '../phases/generated.js';
import { negativeCases } from '../phases/negative.js';
import { pagingCases } from '../phases/paging.js';
import { probeCases } from '../phases/probes.js';
import { workflowCases } from '../phases/workflows.js';
import type { Ledger } from '../matrix/ledger.js';
import { applyProfile, type ProfilePlan } from './profile.js';
import type { Profile, RunOptions } from './run-options.js';

export interface Selection {
  phases: Phase[];
  selected: CaseDef[];
  profilePlan: ProfilePlan;
  /** pr with a ledger: the metered cases left for later, in the run's order (what a top-up may still take). */
  standby: CaseDef[];
}

export function selectCases(
  env: RunEnv,
  options: RunOptions,
  profile: Profile,
  seed: number,
  ledger?: Ledger,
): Selection {
  const phases = selectPhases(options);
  const all: CaseDef[] = [
    ...(phases.includes('examples') ? exampleCases(env) : []),
    ...(phases.includes('negative') ? negativeCases(env) : []),
    // The bulk bodies before the generated inputs: a body with one malformed row proves what a generated malformed
    // body of the same operation would (inputs.ts, invalidBodyProof), so that one is not sent. Paging first: it
    // reads a list before the bulk bodies add to it.
    ...(phases.includes('paging') ? pagingCases(env) : []),
    ...(phases.includes('bulk') ? bulkCases(env) : []),
    ...(phases.includes('generated') ? generatedCases(env) : []),
    ...(phases.includes('workflows') ? workflowCases(env) : []),
    ...(phases.includes('probes') ? probeCases(env) : []),
  ];
  const matching = all.filter((c) => matches(env.contract, c, options));
  const { cases: selected, plan: profilePlan } = applyProfile(env, profile, matching, seed, ledger);
  const later = new Set(ledger ? (profilePlan.leftForLater ?? []) : []);
  return { phases, selected, profilePlan, standby: matching.filter((c) => later.has(c.id)) };
}

function selectPhases(options: RunOptions): Phase[] {
  if (options.examplesOnly) return ['examples'];
  const wanted = options.phases ?? PHASES.filter((p) => p !== 'probes' || options.probeLimits);
  return wanted.filter((p) => p !== 'probes' || options.probeLimits);
}

function matches(contract: Contract, c: CaseDef, options: RunOptions): boolean {
  const tags = options.tags ?? [];
  const ids = options.operations ?? [];
  if (tags.length === 0 && ids.length === 0) return true;
  return c.operations.some((id) => {
    if (ids.includes(id)) return true;
    const op = contract.findOperation(id);
    return op ? op.tags.some((tag) => tags.includes(tag)) : false;
  });
}
