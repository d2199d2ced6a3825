// The kit against the repository's reference server (apps/reference): the full run, rate-limit probes included,
// must pass; so must the Arazzo workflows under `redocly respect`.
import { afterAll, beforeAll, describe, test } from 'vitest';
import { contractModel, loadSpec } from '@cls-api/spec';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  formatMatrix,
  formatSummary,
  PR_QUOTA,
  PR_ROTATION,
  readLedger,
  runContractTests,
  type Report,
} from '../src/index.js';
import {
  appState,
  referenceCli,
  sellersOf,
  shipAnOrder,
  startReference,
  type ReferenceServer,
} from './support/apps.js';
import { respect } from './support/respect.js';

const state = appState(referenceCli);
/**
 * The test-key calls a full run may cost against the reference server (both sellers, the service's count): about a
 * tenth of a test account's month, with every rule proven on every operation it applies to (a body that is not JSON,
 * an unknown resource, page and size out of range, another seller's read, each domain code, each MCP tool's result,
 * each operation's own success where the kit can reach it: each on its own operation or tool). Measured: 112 on a
 * fresh server (98 before each tool's result and each operation's success were asked for, 109 before the invoice's
 * videos were, and another seller's read of them).
 */
const FULL_RUN_METERED_AT_MOST = 115;
if (state === 'absent')
  console.warn('skipped: @cls-api/reference is not installed, so the kit is not run against the reference server');

/** A promise with its settling functions, for a test that waits on another's result. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Awaited by a test that may not run (filtered out): its rejection is that test's, never an unhandled one.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

// The full run, the spend run and the pr series overlap, each on a server of its own: a run waits on its pace far
// more than it works, and on one server they would share the gateway's bucket of 127.0.0.1 (the probes' bursts
// among them), the sellers' quota and their records. Each server starts as the one before held its next run: the
// sellers provisioned and one shipped order.
describe.skipIf(state === 'absent')('against the reference server (apps/reference)', () => {
  let server: ReferenceServer | undefined;
  let spendServer: ReferenceServer | undefined;
  let prServer: ReferenceServer | undefined;
  /** The full run's report, for the pr series to compare with. */
  const fullReport = deferred<Report>();
  /** The full run is over and its server holds a shipped order again: the Arazzo workflows run there. */
  const fullDone = deferred<void>();

  beforeAll(async () => {
    if (state === 'unbuilt')
      throw new Error(
        `${referenceCli} is missing: build the reference server first (pnpm --filter @cls-api/reference build)`,
      );
    [server, spendServer, prServer] = await Promise.all(
      [0, 1, 2].map(async () => {
        const started = await startReference();
        await shipAnOrder(started);
        return started;
      }),
    );
  }, 600_000);

  afterAll(async () => {
    await Promise.all([server?.stop(), spendServer?.stop(), prServer?.stop()]);
  });

  test.concurrent('the whole kit passes, probes included, paced and within the quota', async ({ expect }) => {
    try {
      const report = await runContractTests({
        ...sellersOf(server!),
        probeLimits: true,
        seed: 20261122,
      });
      fullReport.resolve(report);
      const summary = formatSummary(report);
      expect(report.totals.failed, summary).toBe(0);
      expect(report.totals.skipped, summary).toBe(0);
      expect(report.exitCode).toBe(0);
      expect(report.requests.gatewayRetries, summary).toBe(0);
      expect(report.checks.find((c) => c.name === 'rate_limit_probe')!.evaluated).toBeGreaterThan(0);
      expect(report.checks.find((c) => c.name === 'shipped_order_unmodifiable')!.evaluated).toBeGreaterThan(0);
      // Every (operation, rule) pair the contract makes applicable is proven on the reference server, each on its own
      // operation: none left unreached, none standing on another operation's proof.
      const coverage = report.coverage!;
      expect(coverage.totals.proven, formatMatrix(coverage)).toBe(coverage.totals.pairs);
      expect(coverage.pairs.length).toBeGreaterThan(100);
      // The reference server offers the sandbox's helpers: its test clock reaches RETURN_CANCEL_EXPIRED, which no
      // run reaches otherwise before 18:00, and its reset leaves no record of the run (README, "Against the sandbox").
      expect(report.sandbox, summary).toMatchObject({ offered: true });
      const expired = report.errorCodes.find((c) => c.code === 'RETURN_CANCEL_EXPIRED')!;
      expect(expired.reached, summary).toMatchObject({ status: 400, operation: 'cancelReturn' });
      // The run read the process's one model of the contract, which later runs read too: it left the document as
      // the bundle has it.
      expect(contractModel().doc).toEqual(loadSpec());
      expect(report.records!.created, summary).toBeGreaterThan(0);
      expect(report.records!.left, summary).toBe(0);
      expect(summary).toContain('Records: left 0 records');
      // Every seller whose records were left got a reset, and its account is empty: the shipped order made before the
      // run went too, so it is made again for the tests that follow.
      const resets = report.sandbox!.resets!;
      expect(
        resets.map((r) => r.seller),
        summary,
      ).toContain('primary');
      for (const reset of resets) {
        expect(reset.error, summary).toBeUndefined();
        const key = server!.keys[reset.seller].wms!;
        const products = await fetch(`${server!.url}/v3/wms/products?page=1&size=10`, {
          headers: { 'X-API-Key': key },
        });
        expect(((await products.json()) as { pagination: { total: number } }).pagination.total).toBe(0);
      }
      await shipAnOrder(server!);
    } catch (err) {
      // No report (a report once given stays): the pr series fails on the same error.
      fullReport.reject(err);
      throw err;
    } finally {
      fullDone.resolve();
    }
  }, 600_000);

  test.concurrent("a full run's spend: the service's own count of test-key calls, and the records it leaves", async ({
    expect,
  }) => {
    // The service's count, read from X-RateLimit-Remaining on one read of each seller before and after the run (each
    // read counts itself): deterministic, whatever the machine's speed.
    const remaining = async (key: string) => {
      const res = await fetch(`${spendServer!.url}/v3/wms/suppliers`, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(200);
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    const sellers = [spendServer!.keys.primary.wms!, spendServer!.keys.other.wms!];
    const before = await Promise.all(sellers.map(remaining));
    const full = await runContractTests({
      ...sellersOf(spendServer!),
      seed: 20261122,
    });
    const after = await Promise.all(sellers.map(remaining));
    const metered = before.reduce((n, b, i) => n + (b - after[i]! - 1), 0);
    expect(full.exitCode, formatSummary(full)).toBe(0);
    expect(metered, formatSummary(full)).toBeLessThanOrEqual(FULL_RUN_METERED_AT_MOST);
    expect(full.records?.left, formatSummary(full)).toBe(0);
    await shipAnOrder(spendServer!);
    // Rules proven once for the operations that share them are reported, with the case that proved them.
    const covered = full.cases.filter((c) => c.coveredBy);
    expect(covered.length).toBeGreaterThan(0);
    for (const c of covered) for (const by of c.coveredBy!) expect(full.cases.map((x) => x.id)).toContain(by);
  }, 600_000);

  test.concurrent(`${PR_ROTATION} pr runs with a ledger, ${PR_ROTATION} seeds: each within the pr quota, and together they prove every pair a full run proves`, async ({
    expect,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cls-kit-ledger-'));
    const ledger = join(dir, 'ledger.json');
    try {
      let last: Report | undefined;
      for (let run = 0; run < PR_ROTATION; run++) {
        // One seed per run, as CI run numbers give: the ledger, not the seed, turns the rotation. A run that left
        // records reset the account at its end: each starts with the shipped order, as the first did.
        if (run > 0 && last?.sandbox?.resets?.some((r) => r.seller === 'primary')) await shipAnOrder(prServer!);
        last = await runContractTests({
          ...sellersOf(prServer!),
          profile: 'pr',
          seed: 1000 + run,
          ledger,
        });
        expect(last.exitCode, formatSummary(last)).toBe(0);
        for (const q of Object.values(last.quota))
          expect(q.service?.used ?? 0, formatSummary(last)).toBeLessThanOrEqual(PR_QUOTA);
        expect(last.ledger!.run).toBe(run + 1);
      }
      if (last?.sandbox?.resets?.some((r) => r.seller === 'primary')) await shipAnOrder(prServer!);
      const kept = readLedger(ledger);
      // The full run beside this series, on its own server: the pairs it proves.
      const full = (await fullReport.promise)
        .coverage!.pairs.filter((p) => p.status === 'proven')
        .map((p) => `${p.operation} ${p.rule}`);
      expect(kept.runs).toBe(PR_ROTATION);
      // Every pair a full run proves, the rotation proves within PR_ROTATION runs; had one been missed, the summary would
      // name it.
      const unproven = full.filter((pair) => kept.pairs[pair] === undefined);
      const stale = new Set(last!.ledger!.stale.map((s) => s.pair));
      for (const pair of unproven) expect(stale.has(pair), pair).toBe(true);
      expect(unproven, `pairs a full run proves that ${PR_ROTATION} pr runs did not`).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 900_000);

  test.concurrent('the Arazzo workflows pass under redocly respect', async ({ expect }) => {
    // On the full run's server once it is over: its probes' bursts are not to meet these calls in one bucket.
    await fullDone.promise;
    const { code, output } = await respect(
      ['--server', `cls=${server!.url}`, '--input', `run_id=REF${Date.now().toString(36).toUpperCase()}`],
      {
        CLS_API_KEY_WMS: server!.keys.primary.wms!,
        CLS_API_KEY_MANAGER: server!.keys.primary.manager!,
        CLS_OTHER_API_KEY_MANAGER: server!.keys.other.manager!,
      },
    );
    expect(code, output).toBe(0);
  }, 300_000);
});

describe.skipIf(state !== 'ready')('the shipped order every run against the reference server starts with', () => {
  // A fixture request that gets no answer names what became of the server; fetch's own error says only "fetch failed".
  test('names a server that died before it answered, with how it ended', async ({ expect }) => {
    const dead = await startReference();
    process.kill(dead.pid, 'SIGKILL');
    // Stopped once its end has been seen: a server that died must not be waited on for an exit that has passed.
    while (!dead.state().startsWith(`the reference server (pid ${dead.pid}) has exited`)) await sleep(10);
    await dead.stop();
    const failed = await shipAnOrder(dead).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(failed?.message).toMatch(
      /^POST \/v3\/wms\/products for a shipped order got no answer; the reference server \(pid \d+\) has exited \(SIGKILL\)\nits Node\.js: \S+\nit printed: /,
    );
    expect(failed?.cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });
});
