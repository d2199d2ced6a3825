// The profiles of a run. `full`, the nightly run: every case. `pr`, for every pull request: every case that spends
// no test-key quota (no credential, a refused one, the JWT), and one slot of the cases that do, within 15 calls of
// the monthly quota. The slots are a fixed partition of those cases into PR_ROTATION; a ledger (--ledger) picks the
// slot that ran longest ago, else the seed (the CI's run number) does, and consecutive runs go round them all: the
// report says which this run covered and which it left for later runs.
import type { CaseDef, RunEnv } from '../run/case.js';
import { rulesOfCase } from '../matrix/coverage.js';
import type { Ledger } from '../matrix/ledger.js';
import type { Profile } from './run-options.js';

/** Calls of a test key's monthly quota a `--profile pr` run may spend, at most (a hard cap: --max-quota). */
export const PR_QUOTA = 15;
/**
 * How many pr runs go round every case that spends test-key quota: the metered cases are shared out over this many
 * slots, balanced by their expected calls, and each pr run takes one (the one that ran longest ago when a ledger is
 * kept, else the seed's), so that every (operation, rule) pair is proven within this many pr runs.
 */
export const PR_ROTATION = 8;

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

/**
 * The metered cases shared out over PR_ROTATION slots: each in turn to the slot with the fewest expected calls so far,
 * which keeps the run's order within a slot (a case may rely on a record an earlier one made).
 */
export function prSlots(env: RunEnv, cases: CaseDef[]): CaseDef[][] {
  const metered = cases.filter((c) => expectedCalls(env, c) > 0);
  const count = Math.min(PR_ROTATION, metered.length);
  const slots: CaseDef[][] = Array.from({ length: count }, () => []);
  const load = new Array<number>(count).fill(0);
  for (const def of metered) {
    const lightest = load.indexOf(Math.min(...load));
    slots[lightest]!.push(def);
    load[lightest]! += expectedCalls(env, def);
  }
  return slots;
}

/** The cases a profile runs, and what the report says of the choice. */
export function applyProfile(
  env: RunEnv,
  profile: Profile,
  cases: CaseDef[],
  seed: number,
  ledger?: Ledger,
): { cases: CaseDef[]; plan: ProfilePlan } {
  const needTestKey = cases.filter((c) => expectedCalls(env, c) > 0).map((c) => c.id);
  if (profile === 'full') return { cases, plan: { name: 'full', needTestKey } };
  if (ledger) return stalestFirst(env, cases, ledger);
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

/**
 * Calls of a pr run's quota kept back from the cases the ledger chooses: a case's cost learnt in an earlier run may
 * not have held the records every run makes (the kit's product, the order the bulk operations register once).
 */
export const PR_SHARED_CALLS = 2;

/**
 * With a ledger: the metered cases whose pairs were proven longest ago (never first), as many as fit the pr quota
 * by what they cost when they last ran (their estimate before), run in the run's own order. A case the quota still
 * left out stays the stalest and goes first next time, so no pair is forgotten.
 */
function stalestFirst(env: RunEnv, cases: CaseDef[], ledger: Ledger): { cases: CaseDef[]; plan: ProfilePlan } {
  const metered = cases.filter((c) => expectedCalls(env, c) > 0);
  // The run a case last ran in, or the oldest proof of the pairs it sets out to prove if older: a case never run, or
  // one whose pair has gone unproven, goes first; then every case in turn.
  const age = (c: CaseDef) => {
    const rules = rulesOfCase(c);
    const pairs = c.operations.flatMap((op) => rules.map((r) => `${op} ${r}`));
    return Math.min(ledger.cases[c.id]?.run ?? -1, ...pairs.map((k) => ledger.pairs[k]?.run ?? -1));
  };
  const ranked = metered.map((c, i) => ({ c, i, age: age(c) })).sort((a, b) => a.age - b.age || a.i - b.i);
  let room = PR_QUOTA - PR_SHARED_CALLS;
  const chosen = new Set<string>();
  for (const { c } of ranked) {
    // What the case cost when it last ran, by the service's count; its estimate until it has run.
    const cost = ledger.cases[c.id]?.cost ?? expectedCalls(env, c);
    if (cost > room) continue;
    chosen.add(c.id);
    room -= cost;
  }
  return {
    cases: cases.filter((c) => expectedCalls(env, c) === 0 || chosen.has(c.id)),
    plan: {
      name: 'pr',
      covered: [...chosen],
      leftForLater: metered.filter((c) => !chosen.has(c.id)).map((c) => c.id),
      needTestKey: [...chosen],
    },
  };
}
