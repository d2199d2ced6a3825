// The machine's steal over a run, from /proc/stat readings: fixed text, never this machine's numbers.
import { describe, expect, it } from 'vitest';
import { parseCpuTicks, stolenShare } from '../src/machine.js';
import { renderMarkdown } from '../src/report.js';
import { fixedReport } from './report-fixture.js';

// user nice system idle iowait irq softirq steal guest guest_nice
const stat = (steal: number, idle: number) =>
  `cpu  1000 10 200 ${idle} 5 0 15 ${steal} 300 0\ncpu0 500 5 100 ${idle / 2} 2 0 7 ${steal / 2} 150 0\nintr 1\n`;

describe("the host's steal over a run", () => {
  it('reads the machine-wide cpu line, guest time left out (user already holds it)', () => {
    expect(parseCpuTicks(stat(70, 8000))).toEqual({ total: 1000 + 10 + 200 + 8000 + 5 + 15 + 70, steal: 70 });
    expect(parseCpuTicks('intr 1\n')).toBeUndefined();
  });

  it('is the steal between two readings over all the CPU time between them', () => {
    const start = parseCpuTicks(stat(70, 8000));
    const end = parseCpuTicks(stat(120, 8950));
    // 50 of the 1,000 ticks between the readings were stolen.
    expect(stolenShare(start, end)).toBeCloseTo(0.05, 10);
    expect(stolenShare(start, start)).toBeUndefined();
    expect(stolenShare(undefined, end)).toBeUndefined();
  });

  it('is shown with the machine, or said to be unknown', () => {
    const report = fixedReport('get', { errors: {} });
    expect(renderMarkdown({ ...report, stolenShare: 0.0234 })).toContain(
      '| CPU time the host gave other guests during the run (steal) | 2.3% |',
    );
    expect(renderMarkdown(report)).toContain(
      '| CPU time the host gave other guests during the run (steal) | not known |',
    );
  });
});
