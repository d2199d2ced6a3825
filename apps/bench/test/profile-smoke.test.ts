// The profile scenario end to end, as `pnpm bench --only profile` runs it, with a half-second load: the reference and
// then its SQLite floor under `node --cpu-prof`. The report's structure is checked, never its performance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAYERS } from '../src/cpuprofile.js';
import { type CliRun, runCli } from './run-cli.js';

let run: CliRun;

beforeAll(async () => {
  run = await runCli(['--quick', '--only', 'profile', '--seconds', '0.5']);
});

afterAll(async () => {
  await run?.cleanup();
});

describe('pnpm bench --quick --only profile', () => {
  it("profiles the reference and its floor, and spreads each one's busy time over its requests by layer", () => {
    expect(run.exitCode, run.output).toBe(0);
    expect(run.report.results.errors).toEqual({});
    const p = run.report.results.profile!;
    expect(p.floorError).toBeUndefined();
    for (const cost of [p, p.floor!]) {
      expect(cost.rps).toBeGreaterThan(0);
      expect(cost.busyUsPerRequest).toBeGreaterThan(0);
      const summed = cost.costByLayer.reduce((sum, l) => sum + l.usPerRequest, 0);
      expect(summed).toBeCloseTo(cost.busyUsPerRequest, 6);
    }
    // The floor runs none of the reference's own code outside its store.
    expect(p.costByLayer.find((l) => l.layer === LAYERS.reference)?.usPerRequest).toBeGreaterThan(0);
    expect(p.floor!.costByLayer.find((l) => l.layer === LAYERS.reference)?.usPerRequest ?? 0).toBeLessThan(
      p.costByLayer.find((l) => l.layer === LAYERS.reference)!.usPerRequest,
    );
  });

  it('writes the layer-by-layer comparison with the floor into the Markdown report', () => {
    expect(run.markdown).toContain('| Layer | Reference µs/request | SQLite floor µs/request | Difference |');
    expect(run.markdown).toMatch(/\| \*\*all\*\* \| \*\*[\d.,]+\*\* \| \*\*[\d.,]+\*\* \| \*\*[+−][\d.,]+\*\* \|/);
  });
});
