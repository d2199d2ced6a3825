// The kit in --examples-only mode against the repository's Prism mock (apps/mock): every named example of the
// contract, request and response, is served as written and passes every response check.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Contract, formatSummary, runContractTests } from '../src/index.js';
import { appState, mockEntry, startMockServer, type MockServer } from './support/apps.js';

const state = appState(mockEntry);
if (state === 'absent') console.warn('skipped: @cls-api/mock is not installed, so the kit is not run against the mock');

describe.skipIf(state === 'absent')('against the Prism mock (apps/mock), examples only', () => {
  let mock: MockServer | undefined;
  beforeAll(async () => {
    if (state === 'unbuilt')
      throw new Error(`${mockEntry} is missing: build the mock first (pnpm --filter @cls-api/mock build)`);
    mock = await startMockServer();
    // Past Prism's own startup guard (600 s, apps/mock/src/prism.ts): minutes on a busy two-core machine.
  }, 900_000);
  afterAll(async () => {
    await mock?.close();
  });

  test('every example is served as written and passes every check', async () => {
    const report = await runContractTests({ baseUrl: mock!.url, examplesOnly: true, seed: 1, paceFraction: 0 });
    const summary = formatSummary(report);
    expect(report.totals.failed, summary).toBe(0);
    expect(report.totals.skipped, summary).toBe(0);
    const contract = new Contract();
    const responseExamples = contract.operations.reduce(
      (n, op) =>
        n +
        Object.entries(op.responses)
          .filter(([s]) => /^\d{3}$/.test(s))
          .reduce((m, [, r]) => m + Object.keys(r.examples).length, 0),
      0,
    );
    const requestExamples = contract.operations.reduce(
      (n, op) => n + Object.keys(op.requestBody?.examples ?? {}).length + contract.invalidExamples(op).length,
      0,
    );
    expect(report.totals.cases).toBe(responseExamples + requestExamples);
  }, 600_000);

  test('without --target mock, a stateless mock is detected and run as one, said in the summary', async () => {
    const report = await runContractTests({
      baseUrl: mock!.url,
      apiKeys: ['wms_test_madeupformock0000000000', 'manager_test_madeupformock000000000'],
      seed: 3,
      paceFraction: 0,
    });
    const summary = formatSummary(report);
    expect(report.exitCode, summary).toBe(0);
    expect(report.options.target).toBe('mock');
    expect(report.options.detectedMock).toMatch(/a stateless server detected: GET \S+ \(a record no one created/);
    expect(summary).toContain('Target: a stateless mock (a stateless server detected');
  }, 600_000);

  test('--target mock alone (no credential, no other flag) passes, and says once why stateful checks do not apply', async () => {
    const report = await runContractTests({
      baseUrl: mock!.url,
      target: 'mock',
      maxQuota: 250,
      seed: 2,
      paceFraction: 0,
    });
    const summary = formatSummary(report);
    expect(report.exitCode, summary).toBe(0);
    expect(report.totals.failed, summary).toBe(0);
    expect(report.totals.skipped, summary).toBe(0);
    expect(report.leftOutByQuota).toBeUndefined();
    expect(summary.match(/not applicable: stateless server/g)).toHaveLength(1);
    expect(summary).toContain('The quota plan is off');
  }, 600_000);
});
