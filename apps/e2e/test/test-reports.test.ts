// `pnpm test`'s closing counts (scripts/test-all.mjs) read each package's vitest JSON report: a case that failed, and
// a file that failed around its cases (its `beforeAll` threw, so every case shows as skipped), are each counted and
// named, so the tail of a CI log says which test broke.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

type Counts = { passed: number; failed: number; failures: string[] } | null;
const script = pathToFileURL(resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'test-reports.mjs')).href;
const { readReports } = (await import(script)) as { readReports: (dir: string, pkg: string) => Counts };

const dir = mkdtempSync(join(tmpdir(), 'cls-test-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases = (status: string, n: number, failure?: string) =>
  Array.from({ length: n }, (_, i) => ({
    fullName: `case ${i}`,
    status,
    failureMessages: failure ? [failure] : [],
  }));

describe("pnpm test's report reading", () => {
  it('counts and names a failed case, and a file whose set-up failed with every case skipped', () => {
    mkdirSync(join(dir, 'reports'));
    writeFileSync(
      join(dir, 'reports', 'vitest.json'),
      JSON.stringify({
        numPassedTests: 3,
        numFailedTests: 1,
        testResults: [
          {
            name: join(dir, 'test', 'ok.test.ts'),
            status: 'passed',
            message: '',
            assertionResults: cases('passed', 3),
          },
          {
            name: join(dir, 'test', 'case.test.ts'),
            status: 'failed',
            message: '',
            assertionResults: cases('failed', 1, 'AssertionError: expected 1 to be 2\n    at …'),
          },
          {
            name: join(dir, 'test', 'registry.test.ts'),
            status: 'failed',
            message: '\nError: Command failed: npm install @cls-api/client\nnpm error code E404',
            assertionResults: cases('skipped', 9),
          },
        ],
      }),
    );
    const counts = readReports(dir, '@cls-api/release');
    expect(counts?.passed).toBe(3);
    expect(counts?.failed).toBe(2);
    expect(counts?.failures).toEqual([
      '@cls-api/release test/case.test.ts > case 0: AssertionError: expected 1 to be 2',
      '@cls-api/release test/registry.test.ts: Error: Command failed: npm install @cls-api/client',
    ]);
  });

  it('is null for a package that left no reports', () => {
    expect(readReports(join(dir, 'nowhere'), '@cls-api/none')).toBeNull();
  });
});
