// A server that does not authenticate (a mock, a sandbox with authentication off) fails every credential case for
// one reason. The kit finds that out with one made-up key, says so once, and shows those failures as one entry.
// And failures in general: one console entry per check and operation, every failure kept in the JSON report.
import { afterEach, describe, expect, test } from 'vitest';
import { formatSummary, groupFailures } from '../src/index.js';
import { describeFailures, runKit } from './support/run.js';
import { referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('a server that takes any key', () => {
  test('is named once, in the report and at the top of the summary, with the way out (--target mock)', async () => {
    server = await servers.start({ faults: ['accepts_any_key'] });
    const report = await runKit(server, { phases: ['negative'] });
    expect(report.exitCode).toBe(1);
    const auth = report.authentication!;
    expect(auth, describeFailures(report)).toBeDefined();
    expect(auth.message).toContain('this server does not authenticate');
    expect(auth.message).toContain('--target mock');
    expect(auth.status).toBe(200);
    expect(auth.curl).toMatch(/^curl .*X-API-Key: [a-z]+_test_notissued/);
    // Every failed credential case is listed, and nothing else is.
    const failedCredentialCases = report.cases
      .filter((c) => c.concern === 'authentication' && c.status === 'failed')
      .map((c) => c.id);
    expect(failedCredentialCases.length).toBeGreaterThan(20);
    expect(auth.cases).toEqual(failedCredentialCases);

    const summary = formatSummary(report);
    expect(occurrences(summary, 'this server does not authenticate')).toBe(1);
    // Before the list of failures, where it is read first.
    expect(summary.indexOf('this server does not authenticate')).toBeLessThan(summary.indexOf('Failures ('));
    // One entry for all of them, not one per case.
    expect(occurrences(summary, '[authentication]')).toBe(1);
    const kept = report.cases.filter((c) => auth.cases.includes(c.id)).flatMap((c) => c.failures);
    expect(summary).toMatch(new RegExp(`\\[authentication\\] .* · ${kept.length}× .*\\(${auth.cases.length} cases\\)`));
    expect(summary).toMatch(/expected: HTTP 40\d .*\n {3}seen: +HTTP 200/);
    for (const id of auth.cases.slice(3)) expect(summary).not.toContain(id);
    // The JSON report keeps each failure.
    expect(kept.length).toBeGreaterThanOrEqual(auth.cases.length);
    expect(kept.filter((f) => f.check === 'expected_outcome').length).toBe(auth.cases.length);
  });

  test('a server that authenticates gets no such word, and the probe is one request refused with 401', async () => {
    server = await servers.start();
    const report = await runKit(server, { phases: ['negative'], operations: ['listSuppliers'] });
    expect(describeFailures(report)).toBe('');
    expect(report.authentication).toBeUndefined();
    expect(formatSummary(report)).not.toContain('does not authenticate');
    // The preflight, one check per key given and one of the client credentials, the probe, then the cases.
    const checks = Object.values(server.keys.primary).length + Object.values(server.keys.other).length + 1;
    expect(server.log[1 + checks]).toMatchObject({ method: 'GET', status: 401 });
    expect(server.requests).toBe(report.requests.sent);
  });

  test('no credential case selected: no probe is sent', async () => {
    server = await servers.start({ faults: ['accepts_any_key'] });
    const report = await runKit(server, { phases: ['paging'], operations: ['listSuppliers'] });
    expect(report.authentication).toBeUndefined();
    const caseRequests = report.cases.reduce((n, c) => n + c.requests, 0);
    // The preflight and the credential checks (one per key, one for the client credentials), no probe.
    const checks = Object.values(server.keys.primary).length + Object.values(server.keys.other).length + 1;
    expect(server.requests).toBe(caseRequests + 1 + checks);
  });
});

describe('failures are grouped by check and operation in the console', () => {
  test('one entry per check and operation with its count, first example and curl line; the JSON keeps each', async () => {
    // A text/plain Content-Type on every error: the same failure on every negative case of every operation.
    server = await servers.start({ faults: ['content_type_text'] });
    const report = await runKit(server, { phases: ['negative', 'generated'], runs: 3 });
    const failures = report.cases.flatMap((c) => c.failures);
    const pairs = new Set(failures.map((f) => `${f.check} ${f.operation}`));
    expect(failures.length).toBeGreaterThan(pairs.size * 2);

    const groups = groupFailures(report);
    expect(groups.length).toBe(pairs.size);
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(failures.length);
    const summary = formatSummary(report);
    const entries = summary.split('\n').filter((l) => /^\d+\) \[/.test(l));
    expect(entries.length).toBe(pairs.size);
    expect(occurrences(summary, 'reproduce: curl')).toBe(pairs.size);
    const biggest = [...groups].sort((a, b) => b.count - a.count)[0]!;
    expect(biggest.count).toBeGreaterThan(2);
    expect(summary).toContain(`[${biggest.check}] ${biggest.operation} · ${biggest.count}× `);
    expect(summary).toContain(`Failures (${failures.length} in ${pairs.size} groups`);
    // Without a server that ignores keys there is no authentication entry.
    expect(groups.some((g) => g.check === 'authentication')).toBe(false);
    expect(report.totals.failures).toBe(failures.length);
  });
});
