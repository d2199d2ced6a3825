// The kit as a whole against the reference server: a full run passes, and the good-citizen rules hold (pacing,
// backoff, request budget, quota reserve, quota exhaustion, read-only), the seed reproduces inputs, secrets stay out
// of reports, and what the kit expects changes when the contract changes.
import { afterEach, describe, expect, test } from 'vitest';
import { loadSpec, operations } from '@cls-api/spec';
import { CHECKS, Contract, formatSummary, PR_ROTATION, runContractTests, toJUnit, type Report } from '../src/index.js';
import { closedPort } from './support/ports.js';
import { describeDepartures, describeFailures, failedChecks, runKit } from './support/run.js';
import { referenceServers, registerOrder, type TestServer } from './support/servers.js';
import { onVirtualTime } from './support/virtual-time.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const skippedWith = (report: Report, text: string) =>
  report.cases.filter((c) => c.status === 'skipped' && (c.skipReason ?? '').includes(text));

describe('a full run against a server that honours the contract', () => {
  test('passes every case, paced under the gateway limit, probes included', async () => {
    server = await servers.start({ gateway: 'contract' });
    // On the virtual clock: the pacing, the probes' bursts and the server's buckets meet as on an idle machine.
    const report = await onVirtualTime(() =>
      runKit(server!, { paceFraction: 0.5, probeLimits: true, backoffBaseMs: 1000 }),
    );
    expect(describeFailures(report)).toBe('');
    // The reference follows every design too: nothing to report as provisional.
    expect(describeDepartures(report)).toBe('');
    expect(
      report.totals.skipped,
      report.cases
        .filter((c) => c.status === 'skipped')
        .map((c) => `${c.id}: ${c.skipReason}`)
        .join('\n'),
    ).toBe(0);
    expect(report.exitCode).toBe(0);
    // Paced at half the gateway rate, the kit never met a gateway 429 outside the probes.
    expect(report.requests.gatewayRetries).toBe(0);
    expect(report.phases).toEqual(['examples', 'negative', 'generated', 'paging', 'bulk', 'workflows', 'probes']);
    // Every check ran, except those only a quota-exhausted server or a mock can trigger.
    const idle = report.checks.filter((c) => c.evaluated === 0).map((c) => c.name);
    expect(idle.sort()).toEqual(['mock_example_served', 'quota_429_headers'].sort());
    const summary = formatSummary(report);
    expect(summary).toMatch(/calls spent: \d+ \(\d+ sent with test keys, 0 gateway retries\)/);
    // The quota is the one the service counted, not the kit's count of calls sent with test keys.
    const primary = report.quota.primary!;
    expect(summary).toContain(`the service counted ${primary.service!.used} (X-RateLimit-Remaining`);
    expect(summary).toContain(`seed ${report.seed}`);
    expect(CHECKS.length).toBeGreaterThan(20);
    // Every code of the catalogue is listed: reached with its catalogue status, in one of its areas, or out of a test
    // key's reach with the reason (the service clock, a token's life, a server error).
    const catalogue = new Contract().catalog;
    expect(report.errorCodes.map((c) => c.code)).toEqual([...catalogue.keys()]);
    for (const c of report.errorCodes.filter((x) => x.reached)) {
      expect(c.reached!.status, c.code).toBe(catalogue.get(c.code)!.status);
      expect(c.areas.includes('all') || c.areas.includes(c.reached!.area), `${c.code} in ${c.reached!.area}`).toBe(
        true,
      );
    }
    const notReached = report.errorCodes.filter((c) => !c.reached);
    // An expired token was given (CLS_EXPIRED_TOKEN): AUTH_EXPIRED_TOKEN is reached.
    expect(notReached.map((c) => c.code).sort()).toEqual(['INTERNAL_ERROR', 'RETURN_CANCEL_EXPIRED'].sort());
    for (const c of notReached) expect(c.unreachable && c.reason, c.code).toBeTruthy();
    expect(summary).toContain(`Error codes (${catalogue.size - 2} of ${catalogue.size} in the catalogue reached)`);
    expect(summary).toMatch(/✓ AUTH_EXPIRED_TOKEN · 401 in pay · listDeposits/);
    expect(summary).toMatch(/- RETURN_CANCEL_EXPIRED · not reachable: needs the service clock past 18:00/);
    expect(summary).toMatch(/✓ OPTION_NOT_FOUND · 404 in (wms|manager) · /);
  });

  test('without the probes the gateway 429 is listed as not reachable, and why', async () => {
    server = await servers.start();
    const report = await runKit(server, { phases: ['negative'], operations: ['listSuppliers'] });
    const rate = report.errorCodes.find((c) => c.code === 'RATE_LIMIT_EXCEEDED')!;
    expect(rate.reached).toBeUndefined();
    expect(rate.reason).toMatch(/--probe-limits/);
    // A code the selected cases never drive to is not reached, and says so without blaming the server.
    const option = report.errorCodes.find((c) => c.code === 'OPTION_NOT_FOUND')!;
    expect(option.unreachable).toBeUndefined();
    expect(option.reason).toMatch(/no case of this run met it/);
    expect(report.exitCode).toBe(0);
  });
});

describe('being a good citizen', () => {
  test('backs off on gateway 429s and still passes', async () => {
    // Every 4th request meets a gateway 429, on a machine of any speed (a time-based bucket met none on a busy one).
    server = await servers.start({ gateway: { every: 4 } });
    const report = await runKit(server, { phases: ['paging', 'negative'], tags: ['WMS suppliers', 'WMS inventory'] });
    expect(describeFailures(report)).toBe('');
    expect(report.requests.gatewayRetries).toBeGreaterThan(0);
    expect(server.log.filter((l) => l.status === 429).length).toBe(report.requests.gatewayRetries);
  });

  test('honours --max-requests: stops there and reports the rest as skipped, not failed', async () => {
    server = await servers.start();
    const report = await runKit(server, { maxRequests: 15 });
    expect(report.requests.sent).toBeLessThanOrEqual(15);
    expect(server.requests).toBe(report.requests.sent);
    expect(skippedWith(report, '--max-requests 15').length).toBeGreaterThan(10);
    expect(report.totals.failed).toBe(0);
    expect(report.exitCode).toBe(0);
  });

  test('--max-requests is a hard cap even when a slow server makes the probe bursts grow', async () => {
    // Slow answers make the next burst bigger (probes.ts); before, its requests were not counted one by one.
    server = await servers.start({ latencyMs: 50 });
    const report = await runKit(server, { phases: ['probes'], probeLimits: true, maxRequests: 60 });
    expect(server.requests).toBeLessThanOrEqual(60);
    expect(report.requests.sent).toBe(server.requests);
    expect(skippedWith(report, 'request budget').length).toBeGreaterThan(0);
  });

  test('reports the quota the service counted, from X-RateLimit-Remaining before and after', async () => {
    server = await servers.start({ quotaUsedAtStart: 100 });
    const report = await runKit(server, { phases: ['paging'] });
    const primary = report.quota.primary!;
    const used = await server.used();
    // The first metered response's Remaining already counts that call; the service counted the rest after it.
    expect(primary.service).toEqual({ before: 1000 - 101, after: 1000 - used, used: used - 101 });
    expect(primary.kitSent).toBe(used - 100);
    // The run's whole spend by the service's count: the first call, which its own Remaining counts, and the rest.
    expect(primary.charged).toBe(used - 100);
    expect(primary.differs).toBe(false);
    expect(formatSummary(report)).toContain(`the service counted ${primary.service!.used}`);
  });

  test('a service that counts more calls than the kit sent fails quota_counted', async () => {
    server = await servers.start({ quotaPerCall: 2 });
    const report = await runKit(server, { phases: ['paging'] });
    const primary = report.quota.primary!;
    expect(primary.service!.used).toBe(2 * primary.kitCountedInSpan);
    expect(primary.overcounted).toBe(true);
    expect(report.exitCode).toBe(1);
    expect(report.cases.find((c) => c.id === 'quota/primary_service_count')?.failures[0]?.check).toBe('quota_counted');
    const sent = primary.kitCountedInSpan;
    expect(sent).toBeGreaterThan(0);
    expect(formatSummary(report)).toContain(
      `the kit sent ${sent} test-key call${sent === 1 ? '' : 's'} over the same span: the service counted ${sent} more than were sent`,
    );
  });

  test('the refused answers (401/403, not metered) explain a lower count; only a gap left over differs', async () => {
    server = await servers.start();
    // key_of_another_area: 403 answers sent with the seller's keys, which the service does not count.
    const report = await runKit(server, { phases: ['negative', 'paging'] });
    const primary = report.quota.primary!;
    expect(primary.refusedInSpan).toBeGreaterThan(0);
    expect(primary.service!.used).toBe(primary.kitCountedInSpan - primary.refusedInSpan);
    expect(primary.differs).toBe(false);
    expect(report.exitCode, describeFailures(report)).toBe(0);
    expect(formatSummary(report)).toContain(`${primary.refusedInSpan} answers were 401/403, which are not metered`);
    await server.close();
    server = await servers.start({ quotaPerCall: 0 });
    const uncounted = await runKit(server, { phases: ['paging'] });
    expect(uncounted.quota.primary!.differs).toBe(true);
    expect(formatSummary(uncounted)).toMatch(/they differ by \d+/);
  });

  test("--max-quota: never spends more than N calls of a seller's quota, and skips what did not fit", async () => {
    server = await servers.start();
    const report = await runKit(server, { maxQuota: 20 });
    expect(await server.used('primary')).toBeLessThanOrEqual(20);
    expect(await server.used('other')).toBeLessThanOrEqual(20);
    expect(report.quota.primary!.kitSent).toBeLessThanOrEqual(20);
    expect(report.totals.failed).toBe(0);
    // The plan left cases out before they sent anything, and lists them (a case that spends more than its estimate
    // is cut by the transport's cap instead, skipped naming --max-quota 20: the estimates decide which, if any).
    const leftOut = report.leftOutByQuota ?? [];
    expect(leftOut.length).toBeGreaterThan(0);
    for (const id of leftOut) {
      const c = report.cases.find((r) => r.id === id)!;
      expect([c.status, c.requests, c.skipReason]).toEqual(['skipped', 0, expect.stringContaining('quota plan')]);
    }
    expect(formatSummary(report)).toContain(`Left out to fit the quota budget (20 calls): ${leftOut.length} case`);
  });

  test('stops before a test key quota runs out, keeping the reserve', async () => {
    server = await servers.start({ quotaUsedAtStart: 940 });
    const report = await runKit(server, { quotaReserve: 50 });
    // 60 calls were left: the kit spends at most 10 of them and never meets the quota 429.
    expect(await server.used()).toBeLessThanOrEqual(950);
    expect(server.log.some((l) => l.status === 429)).toBe(false);
    expect(skippedWith(report, 'X-RateLimit-Remaining is').length).toBeGreaterThan(0);
    expect(report.totals.failed).toBe(0);
    expect(report.exitCode).toBe(0);
  });

  test('meeting an exhausted quota, it checks the 429 and stops using the key, skipping the rest', async () => {
    server = await servers.start({ quotaUsedAtStart: 1000 });
    const report = await runKit(server, { phases: ['paging', 'workflows'] });
    // One quota 429 per seller whose keys the run uses (the seller's, and the other seller's for its isolation
    // reads), then none: each seller's keys are one allowance.
    const quota429 = server.log.filter((l) => l.status === 429);
    expect(quota429.length).toBeGreaterThanOrEqual(1);
    expect(quota429.length).toBeLessThanOrEqual(2);
    expect(Object.values(report.quota).filter((q) => q.exhausted).length).toBe(quota429.length);
    expect(report.checks.find((c) => c.name === 'quota_429_headers')?.evaluated).toBe(quota429.length);
    expect(skippedWith(report, 'monthly quota').length).toBeGreaterThan(3);
    expect(report.totals.failed).toBe(0);
  });

  test('--read-only sends GET requests only (and the public token requests)', async () => {
    server = await servers.start();
    const report = await runKit(server, { readOnly: true });
    const publicPaths = new Set(
      operations(loadSpec())
        .filter((o) => o.security.length === 0)
        .map((o) => o.path),
    );
    const writes = server.log.filter((l) => l.method !== 'GET');
    expect(
      writes.every((l) => publicPaths.has(l.path)),
      JSON.stringify(writes),
    ).toBe(true);
    expect(skippedWith(report, '--read-only').length).toBeGreaterThan(10);
    expect(describeFailures(report)).toBe('');
    // The seller_isolation workflow registers an order, so it is left out; the order reads are still asked with
    // another seller's credential, for an order the seller has.
    for (const op of ['listManagerOrders', 'getManagerOrder', 'getWmsOrder']) {
      const pair = report.coverage!.pairs.find((p) => p.operation === op && p.rule === 'isolation');
      expect(pair?.status, `${op}: ${JSON.stringify(pair)}`).toBe('proven');
    }
  });

  test('--read-only against a seller who holds nothing: a read without a record to name still sends its valid input', async () => {
    server = await servers.start({ demo: false });
    const report = await runKit(server, { readOnly: true, operations: ['listProductOptions'], phases: ['generated'] });
    const valid = report.cases.find((c) => c.id === 'generated/listProductOptions/valid');
    expect(valid?.status, JSON.stringify(valid)).toBe('passed');
    expect(valid?.requests).toBeGreaterThan(0);
  });

  test("--read-only against a seller who holds nothing: another seller's lists, empty, prove no isolation", async () => {
    server = await servers.start({ demo: false });
    const report = await runKit(server, { readOnly: true, phases: ['workflows'] });
    const lists = ['listWmsOrders', 'listWmsProducts', 'listManagerProducts'];
    for (const op of lists) {
      // Asked, and answered as the contract says: with nothing of the seller's to show, the answer shows nothing.
      const sweep = report.cases.find((c) => c.id === `workflows/${op}/seller_isolation`);
      expect(sweep?.status, JSON.stringify(sweep)).toBe('passed');
      expect(sweep?.requests).toBe(1);
      const pair = report.coverage!.pairs.find((p) => p.operation === op && p.rule === 'isolation');
      expect(pair?.status, op).toBe('not_reached');
      expect(pair?.reason).toContain("could have shown one of the seller's records");
    }
    expect(report.coverage!.pairs.filter((p) => p.rule === 'isolation' && p.status === 'proven')).toEqual([]);
  });

  test("--read-only where both sellers have a product under one code: the other seller's own is not a leak", async () => {
    server = await servers.start({ demo: 'both' });
    const report = await runKit(server, { readOnly: true });
    expect(describeFailures(report)).toBe('');
    expect(report.cases.flatMap((c) => c.notes).some((n) => /another seller has a record of its own/.test(n))).toBe(
      true,
    );
    // The same run against the other seller's read of the shared code answered with the seller's own product: the
    // fault battery's shared_code_leak.
  });

  test('--tag and --operation select the cases about those operations', async () => {
    server = await servers.start();
    const byTag = await runKit(server, { tags: ['WMS suppliers'], phases: ['negative', 'generated', 'paging'] });
    expect(byTag.cases.length).toBeGreaterThan(0);
    expect(byTag.cases.every((c) => c.operations.includes('listSuppliers'))).toBe(true);
    const byId = await runKit(server, { operations: ['getDraftOrder'], phases: ['negative'] });
    expect(new Set(byId.cases.flatMap((c) => c.operations))).toEqual(new Set(['getDraftOrder']));
  });
});

describe('operations that take an API key or a JWT (the manager area)', () => {
  const both = new Contract().operations.filter(
    (op) => op.security.includes('ManagerApiKey') && op.security.includes('BearerAuth'),
  );

  test('every case but the API-key one runs them with the JWT: no monthly quota spent on the manager area', async () => {
    server = await servers.start();
    const report = await runKit(server, {
      phases: ['generated', 'paging'],
      operations: both.map((op) => op.operationId),
    });
    expect(describeFailures(report)).toBe('');
    expect(report.totals.passed).toBeGreaterThan(both.length);
    // The same cases with API keys only: every manager request is then a metered one.
    const keysOnly = await runKit(server, {
      phases: ['generated', 'paging'],
      operations: both.map((op) => op.operationId),
      clientId: undefined,
      clientSecret: undefined,
    });
    const managerRequests =
      keysOnly.cases.reduce((n, c) => n + c.metered, 0) - report.cases.reduce((n, c) => n + c.metered, 0);
    // Every case that sent a request (the others relied on a proof of the same shared rule, `coveredBy`).
    expect(managerRequests).toBeGreaterThanOrEqual(report.cases.filter((c) => c.requests > 0).length);
    expect(report.requests.metered).toBeLessThan(keysOnly.requests.metered);
  });

  test("each is run with the API key too, reading the seller's own data, and refuses a made-up bearer token", async () => {
    expect(both.map((op) => op.area)).toEqual(both.map(() => 'manager'));
    expect(both.length).toBeGreaterThan(3);
    server = await servers.start();
    const report = await runKit(server, {
      phases: ['negative', 'workflows'],
      operations: both.map((op) => op.operationId),
    });
    expect(describeFailures(report)).toBe('');
    const passed = new Set(report.cases.filter((c) => c.status === 'passed').map((c) => c.id));
    for (const op of both) {
      expect(passed, op.operationId).toContain(`workflows/${op.operationId}/with_ManagerApiKey`);
      expect(passed, op.operationId).toContain(`negative/${op.operationId}/invalid_credential/BearerAuth`);
      expect(passed, op.operationId).toContain(`negative/${op.operationId}/invalid_credential/ManagerApiKey`);
      expect(passed, op.operationId).toContain(`negative/${op.operationId}/missing_credential`);
    }
  });

  test('without client credentials there is no JWT to run them with: no such case, nothing skipped for it', async () => {
    server = await servers.start();
    const report = await runKit(server, {
      phases: ['workflows'],
      operations: both.map((op) => op.operationId),
      clientId: undefined,
      clientSecret: undefined,
    });
    expect(report.cases.filter((c) => c.id.includes('/with_')).map((c) => c.id)).toEqual([]);
  });
});

describe('profiles: full (nightly) and pr (every pull request)', () => {
  test('--profile pr spends at most 15 test-key calls, passes, and lists what it covered and left for later', async () => {
    server = await servers.start();
    const report = await runKit(server, { profile: 'pr', seed: 3 });
    expect(describeFailures(report)).toBe('');
    expect(report.exitCode).toBe(0);
    // Held to 15 by the service's own count: a refused call (403) it does not meter is not charged to the budget,
    // so the kit may send more test-key requests than that.
    expect(report.quota.primary?.service?.used ?? 0).toBeLessThanOrEqual(15);
    expect(await server.used()).toBeLessThanOrEqual(15);
    const plan = report.profile!;
    expect(plan.name).toBe('pr');
    expect(plan.slot).toBe(3 % plan.slots!);
    expect(plan.covered!.length).toBeGreaterThan(0);
    // A slot's case the 15 calls did not leave room for is skipped by the quota plan, said so, never failed.
    for (const id of plan.covered!) {
      const c = report.cases.find((x) => x.id === id);
      if (c?.status === 'skipped') expect(c.skipReason, id).toMatch(/quota/);
      else expect(c?.status, id).toBe('passed');
    }
    expect(report.cases.filter((c) => plan.covered!.includes(c.id) && c.status === 'passed').length).toBeGreaterThan(
      plan.covered!.length / 2,
    );
    for (const id of plan.leftForLater!)
      expect(
        report.cases.some((c) => c.id === id),
        id,
      ).toBe(false);
    expect(formatSummary(report)).toMatch(
      new RegExp(
        `Profile pr: slot ${plan.slot! + 1} of ${plan.slots} .*covered ${plan.covered!.length} cases .*left ${plan.leftForLater!.length} for later runs`,
      ),
    );
  });

  test(`the union of ${PR_ROTATION} consecutive pr runs covers every case of the full run that needs a test key`, async () => {
    server = await servers.start();
    // The plan is made before any request: a budget of none shows it without sending anything.
    const full = await runKit(server, { maxRequests: 0 });
    const needed = full.profile!.needTestKey;
    expect(needed.length).toBeGreaterThan(30);
    const covered = new Set<string>();
    for (let run = 1000; run < 1000 + PR_ROTATION; run++) {
      const pr = await runKit(server, { profile: 'pr', seed: run, maxRequests: 0 });
      expect(pr.profile!.slots!).toBe(PR_ROTATION);
      for (const id of pr.profile!.covered!) covered.add(id);
      expect(new Set([...pr.profile!.covered!, ...pr.profile!.leftForLater!])).toEqual(new Set(needed));
    }
    expect([...covered].sort()).toEqual([...needed].sort());
    expect(server.requests).toBe(0);
  });

  test('the full profile says which cases need a test key', async () => {
    server = await servers.start();
    const report = await runKit(server, { phases: ['negative'], operations: ['listSuppliers'] });
    expect(report.profile!.needTestKey.sort()).toEqual(
      ['negative/listSuppliers/key_of_another_area', 'negative/listSuppliers/page_size_out_of_range'].sort(),
    );
    expect(formatSummary(report)).toContain('Test keys: 2 of 4 cases spend test-key quota');
  });
});

describe('reproducibility and reports', () => {
  // Three runs of the generated phase: half a minute on an idle machine, past the package's 120 s on a busy one.
  test('the same seed draws the same generated inputs; another seed draws others', { timeout: 600_000 }, async () => {
    server = await servers.start();
    const notes = async (seed: number) =>
      (await runKit(server!, { seed, phases: ['generated'], runs: 3 })).cases
        .map((c) => `${c.id}: ${c.notes.join(' | ')}`)
        .join('\n');
    const first = await notes(7);
    expect(await notes(7)).toBe(first);
    expect(await notes(8)).not.toBe(first);
  });

  test('no secret reaches a report: keys, client secret and tokens appear as $CLS_… references', async () => {
    server = await servers.start({ faults: ['seller_leak', 'error_code_undocumented'] });
    const report = await runKit(server, { phases: ['negative', 'workflows'] });
    expect(report.totals.failed).toBeGreaterThan(0);
    const text = JSON.stringify(report) + toJUnit(report) + formatSummary(report);
    for (const secret of [
      ...Object.values(server.keys.primary),
      ...Object.values(server.keys.other),
      server.client.secret,
      server.client.id,
    ]) {
      expect(text).not.toContain(secret);
    }
    // No token either: no JWT of any seller shows.
    expect(text).not.toMatch(/eyJ[\w-]{8,}\.eyJ[\w-]{8,}\./);
    expect(text).toContain('$CLS_API_KEY_WMS');
    expect(text).toContain('$CLS_OTHER_API_KEY_MANAGER');
  });

  test('an unreachable server is a connection error: exit code 3, nothing run', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const report = await runContractTests({ baseUrl: url, apiKeys: ['wms_test_x1234567'], paceFraction: 0 });
    expect(report.exitCode).toBe(3);
    expect(report.stoppedBy).toBe('unreachable');
    expect(report.error).toMatch(/ECONNREFUSED|fetch failed/);
    expect(report.cases).toEqual([]);
  });
});

describe('what the kit expects comes from the contract', () => {
  test('a contract with a smaller page size bound: the same server departs from it, and fails it once the bound is no longer provisional', async () => {
    server = await servers.start();
    const spec = loadSpec();
    const size = spec.components!.parameters!.Size as unknown as {
      schema: { maximum: number };
      'x-provisional'?: boolean;
    };
    size.schema.maximum = 50;
    const designed = await runKit(server, { spec, phases: ['negative'], operations: ['listSuppliers'] });
    expect(designed.exitCode, describeFailures(designed)).toBe(0);
    expect(
      designed.departures.find((d) => d.expected.includes('size=51')),
      describeDepartures(designed),
    ).toBeDefined();
    delete size['x-provisional'];
    const shown = await runKit(server, { spec, phases: ['negative'], operations: ['listSuppliers'] });
    const failure = shown.cases.flatMap((c) => c.failures).find((f) => f.expected.includes('size=51'));
    expect(failure, describeFailures(shown)).toBeDefined();
  });

  test('a contract without PRODUCT_NOT_FOUND on a 404 makes the same server fail error_code_documented', async () => {
    server = await servers.start();
    const spec = loadSpec();
    const responses = spec.components!.responses as unknown as Record<string, { 'x-error-codes': string[] }>;
    responses.ProductNotFound!['x-error-codes'] = ['NOT_FOUND'];
    const report = await runKit(server, { spec, phases: ['negative'], operations: ['getWmsProduct'] });
    expect(failedChecks(report).has('error_code_documented'), describeFailures(report)).toBe(true);
  });

  test("a contract with a lower bulk row limit: a departure where the limit is designed, a bulk_row_limit failure where it is the source's", async () => {
    server = await servers.start();
    const spec = loadSpec();
    // POST /v3/wms/orders: the 1,000-row limit is designed (DECISIONS G4), inside the provisional OrderBulkRequest.
    const orders = spec.components!.schemas!.OrderBulkRequest as unknown as {
      properties: { orders: { maxItems: number } };
    };
    orders.properties.orders.maxItems = 10;
    const designed = await runKit(server, { spec, phases: ['bulk'], operations: ['registerOrders'] });
    expect(
      designed.departures.some((d) => d.check === 'bulk_row_limit'),
      describeDepartures(designed),
    ).toBe(true);
    expect(failedChecks(designed).has('bulk_row_limit'), describeFailures(designed)).toBe(false);
    // POST /v3/wms/orders/draft: the limit is the source's, in the unmarked DraftOrderRows.
    const drafts = spec.components!.schemas!.DraftOrderRows as unknown as { maxItems: number };
    drafts.maxItems = 10;
    const shown = await runKit(server, { spec, phases: ['bulk'], operations: ['registerDraftOrders'] });
    expect(failedChecks(shown).has('bulk_row_limit'), describeFailures(shown)).toBe(true);
  });
});

describe("seller isolation with another seller's JWT (CLS_OTHER_CLIENT_ID, CLS_OTHER_CLIENT_SECRET: optional)", () => {
  const run = { operations: ['listManagerOrders'], phases: ['workflows' as const] };
  const isolation = (r: Report) => r.checks.find((c) => c.name === 'seller_isolation')?.evaluated ?? 0;

  test("given, the other seller's JWT neither lists nor reads the seller's order, in place of an order of its own", async () => {
    server = await servers.start();
    const othersOrders = async () =>
      (await server!.store.listOrders(server!.owner('other'), {}, { offset: 0, limit: 1 })).total;
    const before = await othersOrders();
    const without = await runKit(server, run);
    // Without it, the seller's JWT is held to an order registered with the other seller's keys.
    expect(await othersOrders()).toBe(before + 1);
    const other = { otherClientId: server.otherClient.id, otherClientSecret: server.otherClient.secret };
    const report = await runKit(server, { ...run, ...other });
    expect(describeFailures(report)).toBe('');
    // The same two checks (not listed, not found), made with the other seller's JWT, and nothing registered for it.
    expect(isolation(report)).toBe(isolation(without));
    expect(await othersOrders()).toBe(before + 1);
    expect(report.cases.find((c) => c.id === 'workflows/seller_isolation')?.failures).toEqual([]);
    // The secrets never show: the report names the variables.
    expect(JSON.stringify(report)).not.toContain(server.otherClient.secret);
  });

  test("a server that shows any seller's order to a JWT fails it with the other seller's JWT", async () => {
    server = await servers.start({ faults: ['seller_leak_jwt'] });
    const report = await runKit(server, {
      ...run,
      otherClientId: server.otherClient.id,
      otherClientSecret: server.otherClient.secret,
    });
    expect(describeFailures(report)).toMatch(/seller_isolation · .* with another seller's JWT/);
  });
});

describe('one request for every rule it proves: the spend of a full run', () => {
  test('request examples, the JWT and the records a run makes anyway stand in for requests of their own', async () => {
    server = await servers.start();
    const products = async () =>
      (await server!.store.listProducts(server!.owner('primary'), {}, { offset: 0, limit: 1 })).total;
    const productsBefore = await products();
    const report = await runKit(server, {});
    expect(describeFailures(report)).toBe('');
    const byId = (id: string) => {
      const found = report.cases.find((c) => c.id === id);
      expect(found, id).toBeDefined();
      return found!;
    };
    const coveredBy = (id: string) => byId(id).coveredBy ?? [];
    // A request example of the same operation naming a resource the server does not hold is its unknown resource;
    // one operation's lookup never stands for another's.
    expect(coveredBy('negative/registerReturn/unknown_resource')).toEqual(['examples/registerReturn/wrong_size']);
    expect(coveredBy('negative/callMcpTool/unknown_resource')).toEqual(['examples/callMcpTool/get_order']);
    for (const id of ['negative/getWmsOrder/unknown_resource', 'negative/getWmsProduct/unknown_resource']) {
      expect(coveredBy(id), id).toEqual([]);
      expect(byId(id).requests, id).toBe(1);
    }
    // Page and size out of range: on every list, each its own requests (the JWT's lists spend no test key).
    const pageSize = report.cases.filter((c) => c.id.endsWith('/page_size_out_of_range'));
    expect(pageSize.length).toBeGreaterThan(1);
    for (const c of pageSize) expect(c.requests, c.id).toBeGreaterThan(0);
    expect(byId('negative/listManagerOrders/page_size_out_of_range').metered).toBe(0);
    // A body that is not JSON on every operation that takes one; the JSON array only on the public token requests.
    const bodies = report.cases.map((c) => c.id).filter((id) => /body_not_(json|object)$/.test(id));
    const withBody = operations(loadSpec())
      .filter((op) => op.requestBody)
      .map((op) => op.operationId);
    expect(bodies.filter((id) => id.endsWith('/body_not_json')).sort()).toEqual(
      withBody.map((op) => `negative/${op}/body_not_json`).sort(),
    );
    expect(bodies.filter((id) => id.endsWith('/body_not_object')).sort()).toEqual([
      'negative/createAccessToken/body_not_object',
      'negative/refreshAccessToken/body_not_object',
    ]);
    // The product example's product is the product the kit orders from and reads back: no other product created.
    expect(coveredBy('workflows/product_created_read_back')).toEqual(['examples/createProduct/new_product']);
    expect((await products()) - productsBefore).toBe(1);
    // The bulk bodies repeat a row of the bulk example (refused at the storage stage): no row registered for them.
    expect(byId('bulk/registerDraftOrders/rejected_bodies').metered).toBe(3);
    expect(byId('bulk/registerOrders/rejected_bodies').requests).toBe(
      byId('bulk/registerOrders/rejected_bodies').metered,
    );
    // The shipped order is found, and the refused changes read back, through the JWT: the change is the only call.
    expect(byId('workflows/shipped_order_unmodifiable').metered).toBe(1);
    // Raising the order beyond stock is refused; changing its memo is the update's own success.
    expect(byId('workflows/codes/INVENTORY_INSUFFICIENT/updateWmsOrder').metered).toBe(3);
    // Drafts are read back once, through their own area (the JWT reads none).
    expect(byId('workflows/registerDraftOrders/mixed_rows_read_back').metered).toBe(1);
    // An unknown option under the kit's product is OPTION_NOT_FOUND: the code's workflow sends nothing more.
    expect(coveredBy('workflows/codes/OPTION_NOT_FOUND/getProductOption')).toEqual([
      'negative/getProductOption/unknown_resource',
    ]);
  });

  test("no shipped order on the seller's whole list, read through the JWT: skipped without a test-key call", async () => {
    // A seller whose one order has not shipped.
    server = await servers.start({ demo: false });
    await registerOrder(server);
    const report = await runKit(server, { phases: ['workflows'], operations: ['updateWmsOrder'] });
    const shipped = report.cases.find((c) => c.id === 'workflows/shipped_order_unmodifiable');
    expect(shipped?.status).toBe('skipped');
    expect(shipped?.skipReason).toMatch(/no order with order_status_code/);
    expect(shipped?.metered).toBe(0);
  });
});
