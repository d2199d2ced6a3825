// The harness end to end, as `pnpm bench` runs it, on one scenario with very short rounds: the report's structure
// is checked (every number present, the ratios computed from the rounds), never its performance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/report.js';
import { type CliRun, runCli } from './run-cli.js';

let run: CliRun;
let exitCode: number | null;
let output: string;
let report: Report;
let markdown: string;

beforeAll(async () => {
  run = await runCli(['--quick', '--only', 'get', '--rounds', '1', '--seconds', '0.5']);
  ({ exitCode, output, report, markdown } = run);
});

afterAll(async () => {
  await run?.cleanup();
});

const positive = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n > 0;

describe('pnpm bench --quick --only get', () => {
  it('runs to the end without a failed scenario', () => {
    expect(exitCode, output).toBe(0);
    expect(report.results.errors).toEqual({});
    expect(report.scenarios).toEqual(['get']);
    expect(report.quick).toBe(true);
  });

  it('describes the machine', () => {
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(report.machine.memoryGiB).toBeGreaterThan(0);
    expect(report.machine.node).toBe(process.version);
    expect(Date.parse(report.machine.startedAt)).not.toBeNaN();
    // Linux has /proc/stat: the host's steal over the run is a share of the CPU time, never left unknown here.
    expect(report.stolenShare).toBeGreaterThanOrEqual(0);
    expect(report.stolenShare).toBeLessThanOrEqual(1);
  });

  it('measures each of the three servers', () => {
    const get = report.results.get!;
    for (const key of ['reference', 'bare', 'prism'] as const) {
      const s = get.servers[key];
      expect(s.rounds, key).toHaveLength(1);
      for (const n of [
        s.median.rps,
        s.median.p50Ms,
        s.median.p99Ms,
        s.median.serverCpuUsPerRequest,
        s.peakRssMiB,
        s.bodyBytes,
      ]) {
        expect(positive(n), `${key}: ${JSON.stringify(s.median)}`).toBe(true);
      }
      expect(s.median.p99Ms).toBeGreaterThanOrEqual(s.median.p50Ms);
      // Failed responses are counted, by kind, and make the run invalid (a starved machine may have some).
      expect(s.failed).toBe(Object.values(s.failures).reduce((a, b) => a + b, 0));
    }
    expect(get.valid).toBe(Object.values(get.servers).every((s) => s.failed === 0));
    // The ceiling serves the reference's own bytes; the mock is two processes (front server and Prism).
    expect(get.servers.bare.bodyBytes).toBe(get.servers.reference.bodyBytes);
    expect(get.servers.prism.processes).toBeGreaterThanOrEqual(2);
  });

  it('computes the ratios from the rounds', () => {
    const { servers, ratios } = report.results.get!;
    const rps = (key: 'reference' | 'bare' | 'prism') => servers[key].rounds[0]!.rps;
    expect(ratios.referenceToBare).toBeCloseTo(rps('reference') / rps('bare'), 10);
    expect(ratios.referenceToPrism).toBeCloseTo(rps('reference') / rps('prism'), 10);
    expect(ratios.bareToPrism).toBeCloseTo(rps('bare') / rps('prism'), 10);
    // In CPU per request the other server's cost is over the reference's, so that it reads the same way.
    const { cpuRatios } = report.results.get!;
    const cpu = (key: 'reference' | 'bare' | 'prism') => servers[key].rounds[0]!.serverCpuUsPerRequest;
    expect(cpuRatios.referenceToBare).toBeCloseTo(cpu('bare') / cpu('reference'), 10);
    expect(cpuRatios.referenceToPrism).toBeCloseTo(cpu('prism') / cpu('reference'), 10);
    expect(cpuRatios.bareToPrism).toBeCloseTo(cpu('prism') / cpu('bare'), 10);
  });

  it('checks the GET targets and leaves the others not run', () => {
    const byId = Object.fromEntries(report.targets.map((t) => [t.id, t]));
    for (const id of ['get-vs-bare', 'get-vs-prism']) {
      expect(report.results.get!.valid ? ['met', 'missed'] : ['invalid']).toContain(byId[id]!.status);
      expect(positive(byId[id]!.value)).toBe(true);
    }
    const others = report.targets.filter((t) => t.scenario !== 'get').map((t) => t.id);
    expect(others).toContain('draft-p50');
    for (const id of others) expect(byId[id]!.status).toBe('not run');
  });

  it('writes the Markdown report with the same numbers', () => {
    const get = report.results.get!;
    expect(markdown).toMatch(/^# Benchmarks/);
    expect(markdown).toContain('Quick run');
    expect(markdown).toContain(`| CPU | ${report.machine.cores} cores`);
    expect(markdown).toContain(`| Node | ${process.version} |`);
    const two = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(markdown).toContain(
      `| reference ÷ bare Fastify | ${two(get.ratios.referenceToBare)} × | **${two(get.cpuRatios.referenceToBare)} ×** |`,
    );
    expect(markdown).toMatch(
      /\| Reference GET on SQLite ≥ 10 × Prism mock \(server CPU per request; [^|]*\) \| [\d.,]+ × \| (✅ met|❌ missed|⚠️ invalid run) \|/,
    );
    expect(markdown).toMatch(/\| Unchanged rebuild .* \| — \| — not run \|/);
  });
});
