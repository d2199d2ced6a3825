// The scale-out scenario end to end, as `pnpm bench --only scale` runs it, with one very short round: real
// PostgreSQL, Redis and nginx (Debian's, through @cls-api/test-servers). The report's structure is checked, never
// its performance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALE_TARGETS } from '../src/scenarios/scale.js';
import { type CliRun, runCli } from './run-cli.js';

let run: CliRun;

beforeAll(async () => {
  run = await runCli(['--quick', '--only', 'scale', '--rounds', '1', '--seconds', '0.5']);
});

afterAll(async () => {
  await run?.cleanup();
});

const positive = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n > 0;

describe('pnpm bench --quick --only scale', () => {
  it('runs to the end without a failed scenario, and checks only its own targets', () => {
    expect(run.exitCode, run.output).toBe(0);
    expect(run.report.results.errors).toEqual({});
    expect(run.report.scenarios).toEqual(['scale']);
    const own = run.report.targets.filter((t) => t.scenario === 'scale');
    expect(own.map((t) => t.id)).toEqual(['get-postgres-vs-bare', 'nginx-two-instances']);
    for (const t of own) {
      expect(run.report.results.scale!.valid ? ['met', 'missed'] : ['invalid']).toContain(t.status);
      expect(positive(t.value)).toBe(true);
    }
    expect(run.report.targets.filter((t) => t.scenario !== 'scale').every((t) => t.status === 'not run')).toBe(true);
  });

  it('measures every target in the round, with the CPU of each of its processes', () => {
    const scale = run.report.results.scale!;
    expect(Object.keys(scale.targets)).toEqual([...SCALE_TARGETS]);
    for (const key of SCALE_TARGETS) {
      const t = scale.targets[key];
      expect(t.rounds, key).toHaveLength(1);
      for (const n of [t.median.rps, t.median.p50Ms, t.median.p99Ms, t.median.serverCpuUsPerRequest, t.bodyBytes])
        expect(positive(n), `${key}: ${JSON.stringify(t.median)}`).toBe(true);
      expect(t.failed).toBe(Object.values(t.failures).reduce((a, b) => a + b, 0));
      const byPart = t.median.cpuUsPerRequestByPart;
      expect(Object.keys(byPart)).toEqual(t.parts);
      expect(Object.values(byPart).reduce((a, b) => a + b, 0)).toBeCloseTo(t.median.serverCpuUsPerRequest, 6);
      // The kernel's part is a part of the whole, round by round.
      for (const r of t.rounds)
        expect(r.kernelUsPerRequest >= 0 && r.kernelUsPerRequest <= r.serverCpuUsPerRequest, key).toBe(true);
    }
    expect(scale.valid).toBe(SCALE_TARGETS.every((k) => scale.targets[k].failed === 0));
    // What each target's CPU is the sum of: PostgreSQL is its own server (postmaster and its processes), nginx and
    // Redis are the nginx targets' own, and the 2-instance target has two reference processes.
    expect(scale.targets.sqlite.parts).toEqual(['reference']);
    expect(scale.targets.sqliteFloor.parts).toEqual(['floor']);
    expect(scale.targets.postgresFloor.parts).toEqual(['floor', 'postgres']);
    expect(scale.targets.postgres.parts).toEqual(['reference', 'postgres']);
    expect(scale.targets.postgres.processes).toBeGreaterThan(2);
    expect(scale.targets.nginx2.parts).toEqual(['nginx', 'reference', 'postgres', 'redis']);
    expect(scale.targets.nginx2.processes).toBeGreaterThan(scale.targets.nginx1.processes);
    // PostgreSQL's share is measured for every target on it. It may be 0 in a one-second round: the kernel counts CPU
    // in 10 ms ticks, and with statements prepared once the database's work for one short round can stay under a
    // tick on a fast machine. The parts and the process counts above show its processes are the ones summed.
    for (const key of ['postgresFloor', 'postgres', 'nginx1', 'nginx2'] as const) {
      const share = scale.targets[key].median.cpuUsPerRequestByPart.postgres;
      expect(Number.isFinite(share) && share! >= 0, key).toBe(true);
    }
    expect(scale.hotPathOff).toEqual({ API_KEY_CACHE_MS: '0', LIVE_USAGE_FLUSH_MS: '0' });
  });

  it('computes the ratios from the round', () => {
    const { targets, hotPath, scaleOut } = run.report.results.scale!;
    const rps = (k: (typeof SCALE_TARGETS)[number]) => targets[k].rounds[0]!.rps;
    expect(targets.sqlite.toBare).toBeCloseTo(rps('sqlite') / rps('bare'), 10);
    expect(targets.nginx2.toBare).toBeCloseTo(rps('nginx2') / rps('bare'), 10);
    expect(hotPath.sqlite.throughput).toBeCloseTo(rps('sqlite') / rps('sqliteOff'), 10);
    expect(hotPath.postgres.throughput).toBeCloseTo(rps('postgres') / rps('postgresOff'), 10);
    expect(scaleOut.twoToOne).toBeCloseTo(rps('nginx2') / rps('nginx1'), 10);
  });

  it('writes the section into the Markdown report', () => {
    expect(run.markdown).toContain('## Scale-out');
    expect(run.markdown).toMatch(/\| SQLite: hot path on ÷ off \| \*\*[\d.,]+ ×\*\* \| [\d.,]+ × \|/);
    expect(run.markdown).toMatch(/\| \*\*nginx → 2 × PostgreSQL\*\* \| [\d,]+ \|/);
  });
});
