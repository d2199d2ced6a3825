// The GitHub Action's outputs (action.yml), read from the JSON report the kit writes, never from its console text,
// which is written for people and may change. Plain Node: the action runs before anything else is installed.
// Usage: node outputs.mjs REPORT_DIR EXIT_CODE (appends to $GITHUB_OUTPUT)
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir = '.', exitCode = ''] = process.argv.slice(2);
const files = {
  report: join(dir, 'contract.json'),
  junit: join(dir, 'contract.xml'),
  summary: join(dir, 'summary.md'),
};
const outputs = { 'exit-code': exitCode };

if (existsSync(files.report)) {
  const report = JSON.parse(readFileSync(files.report, 'utf8'));
  const sellers = Object.values(report.quota ?? {});
  const remaining = sellers.map((q) => q.remaining).filter((n) => typeof n === 'number');
  Object.assign(outputs, {
    passed: report.totals.passed,
    failed: report.totals.failed,
    skipped: report.totals.skipped,
    // What each seller's month lost to the run, by the service's count where it showed it (quota.<seller>.charged).
    metered: sellers.reduce((n, q) => n + (q.charged ?? 0), 0),
    'quota-remaining': remaining.length > 0 ? Math.min(...remaining) : '',
    'stopped-by': report.stoppedBy ?? '',
    ...Object.fromEntries(Object.entries(files).filter(([, file]) => existsSync(file))),
  });
  console.log(
    `Contract tests: ${outputs.passed} passed, ${outputs.failed} failed, ${outputs.skipped} skipped; ${outputs.metered} test-key calls spent by the service's count; exit ${exitCode}`,
  );
} else {
  // The kit did not start (npx could not install it, Node too old): its own message is above.
  console.log(`Contract tests: no report at ${files.report}; exit ${exitCode}`);
}

const lines = Object.entries(outputs).map(([name, value]) => `${name}=${value}\n`);
if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, lines.join(''));
else process.stdout.write(lines.join(''));
