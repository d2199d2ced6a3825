// The contract-test kit (@cls-api/contract-tests) as a partner's CI runs it: a full run (the nightly) and a
// `--profile pr` run, each against a fresh reference server seeded with the demo data (two sellers, test keys of
// every area, client credentials of both). What a run costs the partner's month is the service's own count:
// X-RateLimit-Remaining before the run's first metered call minus after its last, summed over both sellers.
import { type Report as KitReport, runContractTests } from '@cls-api/contract-tests';
import { keyOf, startReference } from '@cls-api/test-servers';
import type { Context } from '../context.js';

export interface KitRun {
  profile: 'full' | 'pr';
  seed: number;
  /** The service's count of monthly test-key calls (both sellers). */
  meteredByService: number;
  /** Test-key calls the kit sent, 401/403 answers included (those the service leaves uncounted). */
  meteredByKit: number;
  requests: number;
  recordsLeft: number;
  wallMs: number;
  passed: number;
  failed: number;
  skipped: number;
}

export interface KitResult {
  full: KitRun;
  pr: KitRun;
}

/** The figures of kit 3.1 (issue 23, "What a partner sees today"): the run before this one, for comparison. */
export const KIT_3_1 = {
  full: { requests: 293, metered: '166–175', records: '~3,000', wall: '~20 s' },
  readOnlyMetered: 92,
} as const;

/** The service's count from the report: `used` is after the first metered answer, which counted itself. */
export function serviceCount(report: KitReport): number {
  return Object.values(report.quota).reduce((n, q) => n + (q.service ? q.service.used + 1 : 0), 0);
}

async function once(ctx: Context, profile: 'full' | 'pr', seed: number): Promise<KitRun> {
  const server = await startReference({ from: import.meta.url });
  try {
    const [primary, other] = server.accounts;
    if (!primary || !other) throw new Error('the demo data set has fewer than two accounts');
    const started = Date.now();
    const report = await runContractTests({
      baseUrl: server.baseUrl,
      apiKeys: (['wms', 'manager', 'cam'] as const).map((area) => keyOf(primary, area)),
      otherApiKeys: (['wms', 'manager'] as const).map((area) => keyOf(other, area)),
      clientId: primary.client_id,
      clientSecret: primary.client_secret,
      // As the kit README's CI recipes: the second seller's client credentials too, for its JWT.
      otherClientId: other.client_id,
      otherClientSecret: other.client_secret,
      profile,
      seed,
    });
    const run: KitRun = {
      profile,
      seed,
      meteredByService: serviceCount(report),
      meteredByKit: report.requests.metered,
      requests: report.requests.sent,
      recordsLeft: report.records?.left ?? 0,
      wallMs: Date.now() - started,
      passed: report.totals.passed,
      failed: report.totals.failed,
      skipped: report.totals.skipped,
    };
    ctx.log(
      `${profile}: ${run.meteredByService} metered (service), ${run.requests} requests, ${run.recordsLeft} records left, ${(run.wallMs / 1000).toFixed(1)} s, ${run.passed} passed / ${run.failed} failed / ${run.skipped} skipped`,
    );
    return run;
  } finally {
    await server.close();
  }
}

export async function runKit(ctx: Context): Promise<KitResult> {
  // A fixed seed, so that two benchmark runs measure the same inputs (the pr slot is the seed's).
  const seed = 20261122;
  return { full: await once(ctx, 'full', seed), pr: await once(ctx, 'pr', seed) };
}
