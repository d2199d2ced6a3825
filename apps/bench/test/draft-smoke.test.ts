// The draft scenario end to end, as `pnpm bench --only draft` runs it, with one very short round on each engine: the
// reference on SQLite, then on a real PostgreSQL (Debian's, through @cls-api/test-servers). The report's structure is
// checked, never its performance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './run-cli.js';

let run: CliRun;

beforeAll(async () => {
  run = await runCli(['--quick', '--only', 'draft', '--rounds', '1']);
});

afterAll(async () => {
  await run?.cleanup();
});

const positive = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n > 0;

describe('pnpm bench --quick --only draft', () => {
  it('measures both engines and judges both draft targets', () => {
    expect(run.exitCode, run.output).toBe(0);
    expect(run.report.results.errors).toEqual({});
    const d = run.report.results.draft!;
    expect(d.postgresError).toBeUndefined();
    for (const e of [d, d.postgres!]) {
      expect(e.rounds).toHaveLength(1);
      for (const n of [e.p50Ms, e.p99Ms, e.rowsPerSecond, e.serverCpuMsPerRequest, e.peakRssMiB, e.responseBytes]) {
        expect(positive(n), JSON.stringify(e)).toBe(true);
      }
    }
    // PostgreSQL's own CPU is reported apart, as a part of the server's.
    expect(d.databaseCpuMsPerRequest).toBeUndefined();
    expect(positive(d.postgres!.databaseCpuMsPerRequest)).toBe(true);
    expect(d.postgres!.databaseCpuMsPerRequest).toBeLessThan(d.postgres!.serverCpuMsPerRequest);
    const own = run.report.targets.filter((t) => t.scenario === 'draft');
    expect(own.map((t) => t.id)).toEqual(['draft-p50', 'draft-postgres-p50']);
    for (const t of own) expect(['met', 'missed']).toContain(t.status);
    expect(own[1]!.value).toBe(d.postgres!.p50Ms);
  });

  it('writes a row per engine into the Markdown report', () => {
    expect(run.markdown).toMatch(/\| SQLite \| \*\*[\d.,]+\*\* \|/);
    expect(run.markdown).toMatch(/\| PostgreSQL \(reference \+ database server CPU\) \| \*\*[\d.,]+\*\* \|/);
    expect(run.markdown).toMatch(/ \| [\d.,]+ \(reference [\d.,]+, PostgreSQL [\d.,]+\) \| /);
  });
});
