// The closing counts of `pnpm test` (scripts/test-all.mjs), read from the reports each package's test task leaves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

function firstLine(message) {
  return (
    String(message ?? '')
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/**
 * The test cases of a package's test task, from the JSON reports its runner left in <dir>/reports/ (vitest's json
 * reporter shape), and each failure named: package, file, case and the first line of its error.
 */
export function readReports(dir, packageName) {
  const reportsDir = join(dir, 'reports');
  if (!existsSync(reportsDir)) return null;
  let p = 0;
  let f = 0;
  const failures = [];
  for (const name of readdirSync(reportsDir)) {
    if (!name.endsWith('.json')) continue;
    const report = JSON.parse(readFileSync(join(reportsDir, name), 'utf8'));
    if (typeof report.numPassedTests !== 'number') continue;
    p += report.numPassedTests;
    f += report.numFailedTests ?? 0;
    for (const file of report.testResults ?? []) {
      const where = relative(dir, file.name ?? '');
      const failedCases = (file.assertionResults ?? []).filter((r) => r.status === 'failed').length;
      // A file that failed with no failed case failed around its cases (a `beforeAll`, an import): its cases show
      // as skipped, so the file itself counts as one failure and is named with its error.
      if (file.status === 'failed' && failedCases === 0) {
        f += 1;
        failures.push(`${packageName} ${where}: ${firstLine(file.message)}`);
      }
      for (const result of file.assertionResults ?? []) {
        if (result.status !== 'failed') continue;
        failures.push(
          `${packageName} ${where} > ${result.fullName ?? result.title}: ${firstLine(result.failureMessages?.[0])}`,
        );
      }
    }
  }
  return { passed: p, failed: f, failures };
}
