// The pre-flight (`--preflight`): whether a run fits what is left of each seller's test-key monthly quota, asked
// before the run, so that a CI job stops with the reason instead of a run cut short by the reserve (its cases
// skipped, its coverage partial) or a month's allowance spent on a run that could not finish. It sends what a run
// sends before its first case (the base-URL request, the credential checks) and one read per seller, whose
// X-RateLimit-Remaining is the quota left; no case runs.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseDef, RunEnv } from '../run/case.js';
import { Contract } from '../contract/contract.js';
import { checkCredentials, RefusedCredentials, WrongBaseUrl } from '../run/credential-check.js';
import { type ApiKeyCredential, type Seller, UsageError } from './credentials.js';
import type { StopReason } from '../report/exit-codes.js';
import { BudgetSkip, ConnectionError, type QuotaUse } from '../run/http.js';
import { type Ledger, readLedger } from '../matrix/ledger.js';
import { expectedCalls, PR_QUOTA } from './profile.js';
import type { RunOptions } from './run-options.js';
import { checkBaseUrl, preflight as checkBaseUrlAnswers } from '../run/base-url.js';
import { runCredentials } from '../run/credentials.js';
import { DEFAULT_QUOTA_RESERVE, quotaCap, runEnv } from '../run/run-env.js';
import { selectCases } from './selection.js';

export interface SellerRoom {
  seller: Seller;
  /** The key whose read showed the quota, by its variable. */
  ref?: string;
  remaining?: number;
  limit?: number;
  /** When the allowance resets (X-RateLimit-Reset), in service time. */
  resets?: string;
  exhausted: boolean;
  /** Calls the run may spend before it stops at the reserve: remaining − reserve. */
  room?: number;
  fits: boolean;
}

export interface PreflightResult {
  profile: string;
  /** Test-key calls the run is expected to spend of each seller's quota: the estimate, held to the cap. */
  expected: number;
  /** The sum over the cases the run would hold, before the cap. */
  estimate: number;
  /** The run's hard cap on each seller's spend (--max-quota, or the pr profile's), if any. */
  cap?: number;
  /** Cases whose cost the ledger knew from an earlier run (the others are the kit's estimate). */
  fromLedger: number;
  cases: number;
  reserve: number;
  sellers: SellerRoom[];
  fits: boolean;
  /** The quota as the run's report shows it (what the reads saw). */
  quota: Record<string, QuotaUse>;
  lines: string[];
  /** When it does not fit: why, and what to do. */
  message?: string;
}

/** A pre-flight that stopped before its verdict, as a run that stops before its first case: its reason and exit. */
export function preflightStop(err: unknown): { reason: StopReason; message: string } | undefined {
  if (err instanceof UsageError || err instanceof WrongBaseUrl) return { reason: 'usage', message: err.message };
  if (err instanceof RefusedCredentials) return { reason: 'credentials', message: err.message };
  if (err instanceof ConnectionError) return { reason: 'unreachable', message: err.message };
  return undefined;
}

/** The expected spend of the cases a run would hold: what each cost in the ledger's last run, else the estimate. */
function expectedSpend(env: RunEnv, cases: CaseDef[], ledger: Ledger | undefined) {
  let estimate = 0;
  let fromLedger = 0;
  let metered = 0;
  for (const def of cases) {
    // A run that may not write leaves the writing cases out before they send anything (run/cases.ts).
    if (def.writes && env.readOnly) continue;
    const estimated = expectedCalls(env, def);
    if (estimated === 0) continue;
    metered += 1;
    const known = ledger?.cases[def.id]?.cost;
    if (known !== undefined) fromLedger += 1;
    estimate += known ?? estimated;
  }
  return { estimate, fromLedger, metered };
}

/**
 * A read that shows the seller's quota and needs nothing but the key: a GET of the key's own area (where a test key
 * is metered and the answer carries the quota headers, DECISIONS.md G10) with no path or required query parameter.
 */
function quotaRead(env: RunEnv, key: ApiKeyCredential): OperationInfo | undefined {
  const { contract } = env;
  return contract.operations.find(
    (o) =>
      o.method === 'get' &&
      o.area === key.area &&
      !o.path.includes('{') &&
      o.parameters.every((p) => !p.required) &&
      o.security.some((s) => contract.isApiKeyScheme(s)),
  );
}

async function readRoom(env: RunEnv, seller: Seller, keys: ApiKeyCredential[], reserve: number) {
  const { contract, transport } = env;
  const metered = keys.filter((k) => typeof contract.limits.monthlyQuota.get(k.env) === 'number');
  const pick = metered.map((key) => ({ key, op: quotaRead(env, key) })).find((x) => x.op !== undefined);
  if (!pick) return undefined;
  let resets: string | undefined;
  try {
    const ex = await transport.send({ method: 'get', path: pick.op!.path, credential: pick.key });
    const reset = ex.response.headers[contract.quotaHeaders.reset];
    if (reset !== undefined && /^\d+$/.test(reset)) resets = contract.time.format(Number(reset));
  } catch (err) {
    // A quota already used up answers 429 with Retry-After: the pool says so (exhausted).
    if (!(err instanceof BudgetSkip)) throw err;
  }
  const pool = transport.quota(seller);
  const room = pool.exhausted ? 0 : pool.remaining !== undefined ? Math.max(0, pool.remaining - reserve) : undefined;
  return {
    seller,
    ref: pick.key.ref,
    ...(pool.remaining !== undefined ? { remaining: pool.remaining } : {}),
    ...(pool.limit !== undefined ? { limit: pool.limit } : {}),
    ...(resets !== undefined ? { resets } : {}),
    exhausted: pool.exhausted,
    ...(room !== undefined ? { room } : {}),
  };
}

/**
 * Builds the run's cases as the run would (the same profile, seed and ledger) without running them, sends what a run
 * sends before its first case, then reads each seller's quota. Throws what a run would stop on (preflightStop).
 */
export async function runPreflight(options: RunOptions): Promise<PreflightResult> {
  checkBaseUrl(options.baseUrl);
  const contract = new Contract(options.spec);
  const credentials = runCredentials(options, contract);
  const profile = options.profile ?? 'full';
  const stateless = options.target === 'mock' || options.examplesOnly === true;
  const cap = stateless ? undefined : quotaCap(options, profile);
  const seed = options.seed ?? 0;
  const env = runEnv(options, contract, credentials, seed, cap);
  const ledger = options.ledger !== undefined ? readLedger(options.ledger) : undefined;
  const { selected } = selectCases(env, options, profile, seed, ledger);
  const reserve = options.quotaReserve ?? DEFAULT_QUOTA_RESERVE;
  const { estimate, fromLedger, metered } = stateless
    ? { estimate: 0, fromLedger: 0, metered: 0 }
    : expectedSpend(env, selected, ledger);
  const expected = Math.min(estimate, cap ?? Number.POSITIVE_INFINITY);

  await checkBaseUrlAnswers(env.transport, contract);
  if (!stateless) await checkCredentials(env);

  const sellers: SellerRoom[] = [];
  if (expected > 0) {
    for (const [seller, keys] of [
      ['primary', env.keys],
      ['other', env.otherKeys],
    ] as const) {
      const seen = await readRoom(env, seller, keys, reserve);
      if (seen) sellers.push({ ...seen, fits: seen.room === undefined || expected <= seen.room });
    }
  }
  const fits = sellers.every((s) => s.fits);
  const spend = `${expected} call${expected === 1 ? '' : 's'}`;
  const capBy =
    profile === 'pr' && (options.maxQuota === undefined || options.maxQuota >= PR_QUOTA)
      ? 'the pr profile'
      : `--max-quota ${cap}`;
  const basis =
    cap !== undefined && estimate > cap
      ? `held to ${cap} by ${capBy}; ${estimate} by the estimate`
      : `${metered} case${metered === 1 ? '' : 's'} that need a test key${fromLedger > 0 ? `, ${fromLedger} costed by the ledger's last run` : ''}`;
  const lines = [
    stateless
      ? 'Pre-flight: a mock has no quota: nothing to read.'
      : `Pre-flight: profile ${profile} is expected to spend ${spend} of each seller's test-key quota (${basis}); ${reserve} kept back (--quota-reserve).`,
  ];
  for (const s of sellers) {
    const shown =
      s.remaining === undefined && !s.exhausted
        ? 'the server showed no X-RateLimit-Remaining: nothing to judge (the run still stops at the reserve)'
        : s.exhausted
          ? 'the monthly quota is used up (429 with Retry-After)'
          : `X-RateLimit-Remaining ${s.remaining}${s.limit !== undefined ? ` of ${s.limit}` : ''}, ${s.room} to spend`;
    lines.push(
      `  ${s.seller} seller ($${s.ref}): ${shown}${s.resets ? `, resets ${s.resets} (${contract.serviceTimeZone})` : ''}: ${s.fits ? 'fits' : 'does not fit'}`,
    );
  }
  if (!stateless && expected === 0) lines.push('  the run is expected to spend no test-key call: no quota to read.');
  const short = sellers.filter((s) => !s.fits);
  const message =
    short.length === 0
      ? undefined
      : `the run would not fit the test-key quota: ${short
          .map(
            (s) =>
              `the ${s.seller} seller has ${s.room} call${s.room === 1 ? '' : 's'} to spend ${s.exhausted ? '(its quota is used up)' : `(X-RateLimit-Remaining ${s.remaining}, ${reserve} kept back by --quota-reserve)`}${s.resets ? ` until the quota resets at ${s.resets} (${contract.serviceTimeZone})` : ''}`,
          )
          .join(
            '; ',
          )}, and profile ${profile} is expected to spend ${spend}. ${profile === 'pr' ? 'Lower' : 'Run --profile pr, lower'} --max-quota or --quota-reserve, or wait for the reset.`;
  return {
    profile,
    expected,
    estimate,
    ...(cap !== undefined ? { cap } : {}),
    fromLedger,
    cases: metered,
    reserve,
    sellers,
    fits,
    quota: env.transport.quotaSummary(),
    lines,
    ...(message ? { message } : {}),
  };
}
