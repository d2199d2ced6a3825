// The profiles of a run. `full`, the nightly run: every case. `pr`, for every pull request: every case that spends
// no test-key quota (no credential, a refused one, the JWT), and one slot of the cases that do, within 15 calls of
// the monthly quota. The slots are a fixed partition of those cases, so the seed (the CI's run number) picks one, and
// consecutive runs go round them all: the report says which this run covered and which it left for later runs.
import type { CaseDef, RunEnv } from './case.js';
import type { Profile } from './run-options.js';

/** Calls of a test key's monthly quota a `--profile pr` run may spend, at most (a hard cap: --max-quota). */
export const PR_QUOTA = 15;
/**
 * What a slot is packed to: the rest of PR_QUOTA is left for what a slot's cases share and do not count on their own
 * (the kit's product, the row each bulk operation registers once).
 */
export const PR_SLOT_CALLS = 8;

/**
 * Test-key calls a case is expected to send per operation it is about that takes a key, by phase: a paged list is
 * read a few pages deep, a workflow creates and reads back, the rest is one request. The transport's cap holds the
 * run to PR_QUOTA whatever a case really spends; this only packs the slots.
 */
const CALLS_PER_OPERATION: Record<CaseDef['phase'], number> = {
  examples: 1,
  negative: 1,
  generated: 1,
  paging: 3,
  bulk: 4,
  workflows: 2,
  probes: 0,
};

export interface ProfilePlan {
  name: Profile;
  /** pr: the slot of this run (seed mod slots), and how many slots go round every metered case. */
  slot?: number;
  slots?: number;
  /** pr: the metered cases this run covers, and those it leaves for later runs (other slots). */
  covered?: string[];
  leftForLater?: string[];
  /** Every case of the run that spends test-key quota: the rest run on no credential, a refused one or the JWT. */
  needTestKey: string[];
}

/** Whether a credential of this operation is metered in this run: an API key, unless the JWT is used there. */
function meteredOperation(env: RunEnv, operationId: string): boolean {
  const op = env.contract.findOperation(operationId);
  if (!op || op.security.length === 0) return false;
  const scheme = (type: string) => op.security.some((s) => env.contract.securityScheme(s)?.type === type);
  if (!scheme('apiKey')) return false;
  // The manager area runs on the JWT when the kit has client credentials (case.ts, credentialFor).
  return !(scheme('http') && env.clientId && env.clientSecret);
}

/** The test-key calls a case is expected to spend (0: it needs no test key). */
export function expectedCalls(env: RunEnv, def: CaseDef): number {
  // A key sent where it is refused (403): our design does not meter it, a live service might.
  if (/\/with_ApiKeyAuth$|\/key_of_another_area$/.test(def.id)) return 1;
  if (def.concern === 'authentication' || def.phase === 'probes') return 0;
  const metered = def.operations.filter((id) => meteredOperation(env, id)).length;
  if (metered === 0) return 0;
  const perOperation = /\/page_size_out_of_range$/.test(def.id) ? 3 : CALLS_PER_OPERATION[def.phase];
  return Math.max(1, metered * perOperation);
}

/** The metered cases packed into slots of at most PR_SLOT_CALLS expected calls, in the order given. */
export function prSlots(env: RunEnv, cases: CaseDef[]): CaseDef[][] {
  const slots: CaseDef[][] = [];
  let current: CaseDef[] = [];
  let calls = 0;
  for (const def of cases) {
    const cost = expectedCalls(env, def);
    if (cost === 0) continue;
    if (current.length > 0 && calls + cost > PR_SLOT_CALLS) {
      slots.push(current);
      current = [];
      calls = 0;
    }
    current.push(def);
    calls += cost;
  }
  if (current.length > 0) slots.push(current);
  return slots;
}

/** The cases a profile runs, and what the report says of the choice. */
export function applyProfile(
  env: RunEnv,
  profile: Profile,
  cases: CaseDef[],
  seed: number,
): { cases: CaseDef[]; plan: ProfilePlan } {
  const needTestKey = cases.filter((c) => expectedCalls(env, c) > 0).map((c) => c.id);
  if (profile === 'full') return { cases, plan: { name: 'full', needTestKey } };
  const slots = prSlots(env, cases);
  if (slots.length === 0)
    return { cases, plan: { name: 'pr', slot: 0, slots: 0, covered: [], leftForLater: [], needTestKey } };
  const slot = seed % slots.length;
  const chosen = new Set(slots[slot]!.map((c) => c.id));
  return {
    cases: cases.filter((c) => expectedCalls(env, c) === 0 || chosen.has(c.id)),
    plan: {
      name: 'pr',
      slot,
      slots: slots.length,
      covered: [...chosen],
      leftForLater: slots.flatMap((s, i) => (i === slot ? [] : s.map((c) => c.id))),
      needTestKey: [...chosen],
    },
  };
}
