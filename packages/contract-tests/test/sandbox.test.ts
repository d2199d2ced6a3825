// The sandbox's helpers in a run (README, "Against the sandbox"), against the reference server in this process: with
// them passed through, the test clock reaches RETURN_CANCEL_EXPIRED and the reset leaves no record, neither counted
// against the quota; with them answered 404 (a server without them) or turned off, the run is as it was.
import { afterEach, describe, expect, test } from 'vitest';
import { formatSummary } from '../src/index.js';
import { describeFailures, runKit } from './support/run.js';
import { referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CASE = 'workflows/codes/RETURN_CANCEL_EXPIRED/cancelReturn';
const sandboxCalls = (s: TestServer) => s.log.filter((l) => l.path.startsWith('/sandbox/'));
const expired = (report: Awaited<ReturnType<typeof runKit>>) =>
  report.errorCodes.find((c) => c.code === 'RETURN_CANCEL_EXPIRED')!;

describe('a server that offers the sandbox helpers', () => {
  test('the test clock reaches RETURN_CANCEL_EXPIRED and is put back; the reset leaves no record', async () => {
    server = await servers.start({ sandbox: true });
    const report = await runKit(server, { operations: ['cancelReturn'], phases: ['workflows'] });
    const summary = formatSummary(report);
    expect(report.totals.failed, describeFailures(report)).toBe(0);
    expect(report.cases.find((c) => c.id === CASE)?.status, summary).toBe('passed');
    expect(expired(report).reached, summary).toMatchObject({ status: 400, operation: 'cancelReturn', case: CASE });
    expect(report.sandbox).toMatchObject({ offered: true, why: 'GET /sandbox/clock answered 200' });
    // Asked once, the clock moved past the window and put back on real time, one reset at the end.
    expect(sandboxCalls(server).map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual([
      'GET /sandbox/clock 200',
      'GET /sandbox/clock 200',
      'PUT /sandbox/clock 200',
      'DELETE /sandbox/clock 200',
      'POST /sandbox/reset 200',
    ]);
    expect(report.records!.created, summary).toBeGreaterThan(0);
    expect(report.records!.left, summary).toBe(0);
    expect(summary).toContain('Records: left 0 records');
    expect(summary).toMatch(/removed \d+: .*\(the sandbox reset\)/);
    expect(report.sandbox!.resets).toEqual([{ seller: 'primary', removed: expect.any(Object) }]);
    // The helper calls are not metered: the service's count of the run is the kit's own, nothing added.
    const quota = report.quota.primary!;
    expect(quota.service, summary).toBeDefined();
    expect(quota.differs, JSON.stringify(quota)).toBe(false);
    // Nothing of the seller's is left on the server.
    const products = await fetch(`${server.serviceUrl}/v3/wms/products?page=1&size=10`, {
      headers: { 'X-API-Key': server.keys.primary.wms! },
    });
    expect(((await products.json()) as { pagination: { total: number } }).pagination.total).toBe(0);
  });

  test('--no-sandbox (sandbox: false) leaves them alone: nothing asked, the run as without them', async () => {
    server = await servers.start({ sandbox: true });
    const report = await runKit(server, { operations: ['cancelReturn'], phases: ['workflows'], sandbox: false });
    expect(report.totals.failed, describeFailures(report)).toBe(0);
    expect(sandboxCalls(server)).toEqual([]);
    expect(report.sandbox).toEqual({ offered: false, why: 'not used (--no-sandbox)' });
    expect(expired(report).unreachable).toBe(true);
    expect(report.records!.left).toBeGreaterThan(0);
  });
});

describe('a server without them', () => {
  test('one GET /sandbox/clock answered 404, and the run goes as it always did', async () => {
    server = await servers.start();
    const report = await runKit(server, { operations: ['cancelReturn'], phases: ['workflows'] });
    const summary = formatSummary(report);
    expect(report.totals.failed, describeFailures(report)).toBe(0);
    expect(report.cases.find((c) => c.id === CASE)?.status, summary).toBe('passed');
    expect(sandboxCalls(server).map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual(['GET /sandbox/clock 404']);
    expect(report.sandbox).toEqual({ offered: false, why: 'GET /sandbox/clock answered 404: the server has none' });
    expect(expired(report)).toMatchObject({ unreachable: true });
    expect(expired(report).reason).toMatch(/needs the service clock past 18:00/);
    expect(report.records!.left).toBeGreaterThan(0);
    expect(summary).not.toContain('Sandbox helpers');
  });
});
