// The profiles of a run. `full`, the nightly run: every case. `pr`, for every pull request: every case that spends
// no test-key quota (no credential, a refused one, the JWT), and one slot of the cases that do, within 15 calls of
// the monthly quota. The slots are a fixed partition of those cases into PR_ROTATION; a ledger (--ledger) picks the
// slot that ran longest ago, else the seed (the CI's run number) does, and consecutive runs go round them all: the
// report says which this run covered and which it left for later runs.
import type { CaseDef, RunEnv } from '../run/case.js';
import { applicablePairs, rulesOfCase } from '../matrix/coverage.js';
import type { Ledger } from '../matrix/ledger.js';
import type { Profile } from './run-options.js';

/** Calls of a test key's monthly quota a `--profile pr` run may spend, at most (a hard cap: --max-quota). */
export const PR_QUOTA = 15;
/**
 * How many pr runs go round every case that spends test-key quota: the metered cases are shared out over this many
 * slots, balanced by their expected calls, and each pr run takes one (the one that ran longest ago when a ledger is
 * kept, else the seed's), so that every (operation, rule) pair is proven within this many pr runs.
 */
export const PR_ROTATION = 10;

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
  const withScheme = /\/with_([A-Za-z0-9]+)$/.exec(def.id)?.[1];
  if (withScheme !== undefined && env.contract.isApiKeyScheme(withScheme)) return 1;
  if (/\/key_of_another_area$|\/api_key_on_jwt_area$/.test(def.id)) return 1;
  if (def.concern === 'authentication' || def.phase === 'probes') return 0;
  const metered = def.operations.filter((id) => meteredOperation(env, id)).length;
  if (metered === 0) return 0;
  const perOperation = /\/page_size_out_of_range$/.test(def.id) ? 3 : CALLS_PER_OPERATION[def.phase];
  return Math.max(1, metered * perOperation);
}

/**
 * The metered cases shared out over PR_ROTATION slots: each in turn to the slot with the fewest expected calls so far,
 * which keeps the run's order within a slot (a case may rely on a record an earlier one made). A case that reads
 * records another case makes (`needs`) goes to the slot of a case that makes them, as a ledger's choice takes one
 * along: in a slot of its own it would only skip, having nothing to read.
 */
export function prSlots(env: RunEnv, cases: CaseDef[]): CaseDef[][] {
  const metered = cases.filter((c) => expectedCalls(env, c) > 0);
  const count = Math.min(PR_ROTATION, metered.length);
  const slots: CaseDef[][] = Array.from({ length: count }, () => []);
  const load = new Array<number>(count).fill(0);
  const makes = (maker: CaseDef, opId: string) => maker.phase !== 'negative' && maker.operations.includes(opId);
  for (const def of metered) {
    const withMaker = (def.needs ?? [])
      .map(
        (opId) =>
          [
            slots.findIndex((slot) => slot.some((m) => m.phase === 'workflows' && makes(m, opId))),
            slots.findIndex((slot) => slot.some((m) => makes(m, opId))),
          ].find((i) => i >= 0) ?? -1,
      )
      .find((i) => i >= 0);
    const target = withMaker ?? load.indexOf(Math.min(...load));
    slots[target]!.push(def);
    load[target]! += expectedCalls(env, def);
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
 * With a ledger: the pairs proven longest ago (never first) are what the rotation owes. A pr run takes, one at a time,
 * the metered case that proves the most of the oldest pairs not yet taken care of per call it cost when it last ran
 * (its estimate before), while the quota has room; among equals the case that ran longest ago, so a case whose pairs
 * other cases keep proving (a refused key's wrong-area call, say) still takes its turn. The cases run in the run's
 * own order.
 */
function stalestFirst(env: RunEnv, cases: CaseDef[], ledger: Ledger): { cases: CaseDef[]; plan: ProfilePlan } {
  const metered = cases.filter((c) => meteredIn(env, ledger, c));
  const chosen = pickStalest(env, metered, ledger, PR_QUOTA - PR_SHARED_CALLS, { proven: new Set(), made: new Set() });
  const free = new Set(cases.filter((c) => !metered.includes(c)).map((c) => c.id));
  return {
    cases: cases.filter((c) => free.has(c.id) || chosen.has(c.id)),
    plan: {
      name: 'pr',
      covered: [...chosen],
      leftForLater: metered.filter((c) => !chosen.has(c.id)).map((c) => c.id),
      needTestKey: [...chosen],
    },
  };
}

/**
 * Whether a case spends test-key calls: by its estimate, or by what it cost when it last ran (a key the service
 * meters where it refuses it).
 */
function meteredIn(env: RunEnv, ledger: Ledger, c: CaseDef): boolean {
  return expectedCalls(env, c) > 0 || (ledger.cases[c.id]?.cost ?? 0) > 0;
}

/**
 * After the cases a pr run chose have run, the ones left for later that still fit what the service says is left of
 * the quota (an estimate may have been high), chosen as the run chose its first: the pairs this run proved count as
 * fresh, and the records it made are there to read. In the run's order; none when nothing fits.
 */
export function prTopUp(env: RunEnv, standby: CaseDef[], ledger: Ledger, room: number, now: RunSoFar): CaseDef[] {
  const chosen = pickStalest(env, standby, ledger, room, now);
  return standby.filter((c) => chosen.has(c.id));
}

/** What the run has done so far: the pairs it proved, the operations through which it made the seller's records. */
export interface RunSoFar {
  proven: Set<string>;
  made: Set<string>;
}

function pickStalest(env: RunEnv, metered: CaseDef[], ledger: Ledger, room: number, now: RunSoFar): Set<string> {
  const cost = (c: CaseDef) => ledger.cases[c.id]?.cost ?? expectedCalls(env, c);
  const applicable = applicablePairs(env);
  const provenIn = (pair: string) => (now.proven.has(pair) ? ledger.runs + 1 : (ledger.pairs[pair]?.run ?? -1));
  // The pairs a case proves: those of the rules it is about and the codes it drives the server to (where the
  // operation lists them), and what it proved when it last ran; one that has not run yet is counted on for the
  // answers it will get too (every answer proves its operation's response rule, a test key's its quota headers, and
  // one of a case not made to be refused may be a success: once it has run, the ledger says whether it was).
  const aims = new Map(
    metered.map((c) => {
      const last = ledger.cases[c.id];
      const refused = c.phase === 'negative' || c.id.endsWith('/invalid');
      const rules = [
        ...rulesOfCase(c),
        ...(c.reaches ?? []).map((code) => `code:${code}`),
        ...(last
          ? []
          : ['response', ...(refused ? [] : ['success']), ...(expectedCalls(env, c) > 0 ? ['quota_headers'] : [])]),
      ];
      const own = c.operations.flatMap((op) => rules.map((r) => `${op} ${r}`));
      return [c.id, [...new Set([...own, ...(last?.proves ?? [])])].filter((k) => applicable.has(k))];
    }),
  );
  // The case that makes each record a case reads (`needs`), taken along with it: one the ledger saw make such
  // records, else one about that operation that has not shown it makes none (a workflow reads back what it made, so
  // before an example), the cheapest.
  const makers = (opId: string) => {
    const known = metered.filter((c) => ledger.cases[c.id]?.makes?.includes(opId));
    if (known.length > 0) return known;
    const untried = metered.filter((c) => c.operations.includes(opId) && !ledger.cases[c.id] && c.phase !== 'negative');
    const workflows = untried.filter((c) => c.phase === 'workflows');
    return workflows.length > 0 ? workflows : untried;
  };
  const chosen = new Set<string>();
  const withMakers = (c: CaseDef): CaseDef[] => [
    c,
    ...(c.needs ?? []).flatMap((opId) => {
      if (now.made.has(opId)) return [];
      const options = makers(opId);
      if (options.length === 0 || options.some((m) => chosen.has(m.id) || m.id === c.id)) return [];
      return [options.reduce((a, b) => (cost(b) < cost(a) ? b : a))];
    }),
  ];
  const owed = new Set<string>();
  for (;;) {
    let best: { take: CaseDef[]; age: number; gain: number; caseAge: number } | undefined;
    for (const c of metered) {
      if (chosen.has(c.id)) continue;
      const take = withMakers(c);
      const calls = take.reduce((n, x) => n + cost(x), 0);
      if (calls > room) continue;
      const open = [...new Set(take.flatMap((x) => aims.get(x.id)!))].filter((k) => !owed.has(k));
      const age = open.length > 0 ? Math.min(...open.map(provenIn)) : Number.POSITIVE_INFINITY;
      const gain = open.filter((k) => provenIn(k) === age).length / Math.max(1, calls);
      const caseAge = ledger.cases[c.id]?.run ?? -1;
      if (
        !best ||
        age < best.age ||
        (age === best.age && (gain > best.gain || (gain === best.gain && caseAge < best.caseAge)))
      )
        best = { take, age, gain, caseAge };
    }
    if (!best) break;
    for (const x of best.take) {
      chosen.add(x.id);
      for (const k of aims.get(x.id)!) owed.add(k);
      room -= cost(x);
    }
  }
  return chosen;
}
