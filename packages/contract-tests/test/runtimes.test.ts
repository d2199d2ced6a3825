// The README's "Runtimes" table, row by row: the kit's command run by that row's Node.js makes a full run against the
// reference server run by the same Node.js, on PostgreSQL (the reference's SQLite driver is a native addon built for
// the Node.js of the install, which a second Node.js cannot load). A partner's CI runs the kit on whatever Node.js
// it has; this is where a difference between two of them would show. The rows run at once: a run waits on its
// pace far more than it works.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ensureNpmRuntime,
  npmSpec,
  sparePort,
  type RunningPostgres,
  type RuntimeRow,
  runtimeBin,
  runtimeTable,
  startPostgres,
} from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Report } from '../src/index.js';
import { appState, mockCli, referenceCli, shipAnOrder, startMockProcess, startReference } from './support/apps.js';
import { runCli } from './support/command.js';
import { kitVariables } from './support/servers.js';

const pkgDir = resolve(import.meta.dirname, '..');
const table = runtimeTable(join(pkgDir, 'README.md'));
const state = appState(referenceCli);
const mockState = appState(mockCli);
if (state === 'absent' || mockState === 'absent')
  console.warn('skipped: @cls-api/reference or @cls-api/mock is not installed, so no runtime is run');

/** The Node.js a row names: this process's, or the one its npm package installs. */
async function nodeOf(row: RuntimeRow): Promise<string> {
  const spec = npmSpec(row);
  return spec ? runtimeBin(await ensureNpmRuntime(spec), 'node') : process.execPath;
}

describe.skipIf(state === 'absent' || mockState === 'absent')("the README's Runtimes table", () => {
  let postgres: RunningPostgres | undefined;
  const work = mkdtempSync(join(tmpdir(), 'cls-kit-runtimes-'));

  beforeAll(async () => {
    if (state === 'unbuilt')
      throw new Error(
        `${referenceCli} is missing: build the reference server first (pnpm --filter @cls-api/reference build)`,
      );
    if (mockState === 'unbuilt')
      throw new Error(`${mockCli} is missing: build the mock first (pnpm --filter @cls-api/mock build)`);
    postgres = await startPostgres(() => undefined);
  }, 600_000);

  afterAll(async () => {
    await postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test.concurrent.each(table.map((row, i) => [row.runtime, row, i] as const))(
    '%s: the command passes a full run against the reference server on the same Node.js',
    async (_name, row, i) => {
      const node = await nodeOf(row);
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      // "20" names a major; "22.23.3" a release.
      expect(`${version}.`.startsWith(`v${row.version}.`), `${node} is ${version}`).toBe(true);

      const server = await startReference({ node, database: await postgres!.createDatabase(`kit_runtime_${i}`) });
      try {
        // The server is that Node.js, not this process's.
        expect(realpathSync(`/proc/${server.pid}/exe`)).toBe(realpathSync(node));
        await shipAnOrder(server);
        const report = join(work, `report-${i}.json`);
        const run = await runCli(['--quiet', '--seed', '20261206', '--json', report], kitVariables(server), node);
        const said = run.output;
        expect(run.code, said).toBe(0);
        const result = JSON.parse(readFileSync(report, 'utf8')) as Report;
        expect(result.totals.failed, said).toBe(0);
        expect(result.totals.passed, said).toBeGreaterThan(100);
        // Only the rate-limit probes are left out: a full run without --probe-limits does not burst.
        const skipped = result.cases.filter((c) => c.status === 'skipped');
        expect(
          skipped.filter((c) => c.phase !== 'probes').map((c) => `${c.id}: ${c.skipReason}`),
          said,
        ).toEqual([]);
      } finally {
        await server.stop();
      }
    },
    600_000,
  );

  test.concurrent.each(table.map((row) => [row.runtime, row] as const))(
    '%s: the command passes --target mock against the mock (and its Prism) on the same Node.js',
    async (_name, row) => {
      const node = await nodeOf(row);
      const mock = await startMockProcess(node, await sparePort());
      try {
        expect(realpathSync(`/proc/${mock.pid}/exe`)).toBe(realpathSync(node));
        expect(realpathSync(`/proc/${mock.prism}/exe`)).toBe(realpathSync(node));
        const report = join(work, `mock-${row.version}.json`);
        const run = await runCli(
          ['--target', 'mock', '--quiet', '--seed', '2', '--json', report],
          { CLS_BASE_URL: mock.url },
          node,
        );
        const said = run.output;
        expect(run.code, said).toBe(0);
        const result = JSON.parse(readFileSync(report, 'utf8')) as Report;
        expect(result.totals.failed, said).toBe(0);
        expect(result.totals.skipped, said).toBe(0);
        expect(result.totals.passed, said).toBeGreaterThan(50);
      } finally {
        // Ctrl-C, as a terminal sends it: the mock stops Prism and exits 0.
        await mock.close();
      }
    },
    600_000,
  );
});
