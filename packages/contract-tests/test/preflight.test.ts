// `--preflight`: the built command reads each seller's test-key quota left and says whether the run its options
// describe fits above the reserve, against the fake server, whose accounts can start the month with calls used.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { NO_CREDENTIAL } from '../src/run/credentials.js';
import { runPreflight } from '../src/plan/preflight.js';
import { kitVariables, referenceServers, type TestServer } from './support/servers.js';
import { runCli as run } from './support/command.js';
import { kitOptions, runKit } from './support/run.js';

const servers = referenceServers();
let fake: TestServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cls-preflight-'));
  dirs.push(dir);
  return dir;
}

describe('--preflight', () => {
  test('--help lists it', async () => {
    const r = await run(['--help'], {});
    expect(r.stdout).toContain('--preflight');
  });

  test('a run that fits: exit 0, one call of each seller’s quota spent to read it, no case run', async () => {
    fake = await servers.start();
    const r = await run(['--preflight', '--profile', 'pr', '--seed', '3'], kitVariables(fake));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "Pre-flight: profile pr is expected to spend 15 calls of each seller's test-key quota (held to 15 by the pr profile;",
    );
    expect(r.stdout).toMatch(
      / {2}primary seller \(\$CLS_API_KEY_WMS\): X-RateLimit-Remaining 999 of 1000, 949 to spend, resets \d{4}-\d\d-01 00:00:00 \(Asia\/Seoul\): fits/,
    );
    expect(r.stdout).toMatch(
      / {2}other seller \(\$CLS_OTHER_API_KEY_WMS\): X-RateLimit-Remaining 999 of 1000, 949 to spend/,
    );
    expect(await fake.used('primary')).toBe(1);
    expect(await fake.used('other')).toBe(1);
    // The base-URL request, one credential check per key and client, and the two reads: nothing a case sends.
    expect(fake.requests).toBeLessThan(12);
  });

  test('a run that does not fit above the reserve: exit 3, the reason on stderr and in the report files', async () => {
    fake = await servers.start({ quotaUsedAtStart: 940 });
    const dir = tempDir();
    const json = join(dir, 'contract.json');
    const summary = join(dir, 'summary.md');
    const r = await run(['--preflight', '--profile', 'pr', '--json', json, '--summary', summary], kitVariables(fake));
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const message =
      'the run would not fit the test-key quota: the primary seller has 9 calls to spend (X-RateLimit-Remaining 59, 50 kept back by --quota-reserve) until the quota resets at ';
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('and profile pr is expected to spend 15 calls. Lower --max-quota or --quota-reserve');
    expect(r.stdout).toContain('does not fit');
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect([report.exitCode, report.stoppedBy]).toEqual([3, 'budget']);
    expect(report.error).toContain(message);
    expect(report.quota.primary.remaining).toBe(59);
    expect(readFileSync(summary, 'utf8')).toMatch(/^## Contract tests: ⛔ stopped \(budget, exit 3\)/);
    // A smaller reserve makes room: the same quota fits.
    const lower = await run(['--preflight', '--profile', 'pr', '--quota-reserve', '20'], kitVariables(fake));
    expect(lower.code, lower.stdout + lower.stderr).toBe(0);
  });

  test('a quota already used up: exit 3, said so', async () => {
    fake = await servers.start({ quotaUsedAtStart: 1000 });
    const r = await run(['--preflight', '--profile', 'pr'], kitVariables(fake));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('the primary seller has 0 calls to spend (its quota is used up)');
  });

  test('set-up errors are exit 2 as in a run: no credential, a key the server refuses', async () => {
    fake = await servers.start();
    const none = await run(['--preflight'], { CLS_BASE_URL: fake.url });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(NO_CREDENTIAL);
    const refused = await run(['--preflight'], {
      ...kitVariables(fake),
      CLS_API_KEYS: 'wms_test_notissuedbyanyone0preflight00',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the server refused a credential given: $CLS_API_KEY_WMS');
  });

  test('an unreachable server is exit 3', async () => {
    fake = await servers.start();
    const variables = kitVariables(fake);
    await fake.close();
    fake = undefined;
    const r = await run(['--preflight'], variables);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('ECONNREFUSED');
  });

  test('with a ledger, each case is costed by what it spent when it last ran', async () => {
    fake = await servers.start({ gateway: 'off' });
    const ledger = join(tempDir(), 'ledger.json');
    const ran = await runKit(fake, { phases: ['paging', 'negative'], ledger });
    const spent = ran.cases.filter((c) => c.status !== 'skipped').reduce((n, c) => n + c.charged, 0);
    const before = await runPreflight(kitOptions(fake, { phases: ['paging', 'negative'] }));
    const after = await runPreflight(kitOptions(fake, { phases: ['paging', 'negative'], ledger }));
    expect(after.fromLedger).toBe(after.cases);
    // The cases that need a test key spent no more than the whole run (a refused call after the last answer that
    // showed the count is charged to its case by the kit's count until a later answer shows the service's).
    expect(after.estimate).toBeGreaterThan(0);
    expect(after.estimate).toBeLessThanOrEqual(spent);
    // The estimate before any run counts a refused key as spent, which the service does not meter.
    expect(before.estimate).toBeGreaterThan(after.estimate);
    expect(after.fits).toBe(true);
  });
});
