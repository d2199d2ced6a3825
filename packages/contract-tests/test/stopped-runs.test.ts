// A run that stops (a usage error, a server that is not there) still leaves its report folder, says what to check,
// and says the cases it did not reach were not reached because it stopped; a finished run prints its coverage.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { runCli as run } from './support/command.js';
import { closedPort } from './support/ports.js';
import { kitVariables, referenceServers, type TestServer } from './support/servers.js';

const dirs: string[] = [];
const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function reportDir(): { dir: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'cls-kit-report-'));
  dirs.push(dir);
  return {
    dir,
    args: [
      '--junit',
      join(dir, 'contract.xml'),
      '--json',
      join(dir, 'contract.json'),
      '--summary',
      join(dir, 'summary.md'),
    ],
  };
}

test('a usage error (no base URL, as when a CI variable is unset) leaves JUnit with one failing case, the JSON and the summary', async () => {
  const { dir, args } = reportDir();
  const r = await run(args);
  expect(r.code).toBe(2);
  const junit = readFileSync(join(dir, 'contract.xml'), 'utf8');
  expect(junit).toMatch(/failures="1"/);
  expect(junit).toMatch(/<failure type="usage" message="--base-url \(or CLS_BASE_URL\) is required">/);
  const json = JSON.parse(readFileSync(join(dir, 'contract.json'), 'utf8')) as Record<string, unknown>;
  expect(json).toMatchObject({ exitCode: 2, stoppedBy: 'usage', error: '--base-url (or CLS_BASE_URL) is required' });
  expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/stopped \(usage, exit 2\)[\s\S]*CLS_BASE_URL/);
});

test('no credential at all: exit 2, and the report folder names what to set', async () => {
  const { dir, args } = reportDir();
  const r = await run(['--base-url', 'http://127.0.0.1:1', ...args]);
  expect(r.code).toBe(2);
  expect(existsSync(join(dir, 'contract.xml'))).toBe(true);
  expect(readFileSync(join(dir, 'contract.xml'), 'utf8')).toMatch(/CLS_API_KEYS/);
});

test('a server that is not there: the message names CLS_BASE_URL, and nothing is blamed on filters', async () => {
  const { dir, args } = reportDir();
  const port = await closedPort();
  const r = await run(['--base-url', `http://127.0.0.1:${port}`, '--quiet', ...args], {
    CLS_API_KEYS: 'wms_test_abcdefghijklmnop',
  });
  expect(r.code).toBe(3);
  expect(r.output).toMatch(
    /ECONNREFUSED \(no server answers at http:\/\/127\.0\.0\.1:\d+: check CLS_BASE_URL or --base-url/,
  );
  expect(r.output).not.toMatch(/filters/);
  const json = JSON.parse(readFileSync(join(dir, 'contract.json'), 'utf8')) as {
    stoppedBy: string;
    errorCodes: Array<{ reason?: string; unreachable?: boolean }>;
    coverage: { totals: { not_reached: number; pairs: number }; pairs: Array<{ reason?: string }> };
  };
  expect(json.stoppedBy).toBe('unreachable');
  for (const c of json.errorCodes.filter((x) => !x.unreachable && x.reason))
    expect(c.reason).toMatch(/the run stopped before any case met it/);
  expect(json.coverage.totals.not_reached).toBe(json.coverage.totals.pairs);
  expect(readFileSync(join(dir, 'contract.xml'), 'utf8')).toMatch(/<failure type="unreachable"/);
});

test('--coverage prints the matrix: every operation, one column per rule', async () => {
  server = await servers.start();
  const { dir, args } = reportDir();
  const r = await run(['--coverage', '--quiet', '--phase', 'negative', '--operation', 'getWmsOrder', ...args], {
    ...kitVariables(server),
  });
  expect(r.code, r.output).toBe(0);
  expect(r.output).toMatch(/Coverage matrix: \d+ of \d+ \(operation, rule\) pairs proven/);
  expect(r.output).toMatch(/^operation +response +success +auth +body_parsing +unknown_resource/m);
  // Refusals only: the answers prove the response rule, never the success rule, which stays not reached (·).
  expect(r.output).toMatch(/^getWmsOrder +✓ +· +✓ +✓/m);
  expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/## Contract tests: ✅ passed[\s\S]*### Coverage/);
});
