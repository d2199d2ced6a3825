// The kit scenario's section of the report, on fixed inputs: each run's figures beside 3.1's from issue 23.
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../src/report.js';
import type { KitRun } from '../src/scenarios/kit.js';
import { fixedReport } from './report-fixture.js';

const run = (profile: 'full' | 'pr', n: number): KitRun => ({
  profile,
  seed: 7,
  meteredByService: n,
  meteredByKit: n + 3,
  requests: n * 4,
  recordsLeft: n === 50 ? 20 : 3,
  wallMs: 12_345,
  passed: 90,
  failed: 0,
  skipped: 1,
});

describe('the kit scenario in the report', () => {
  it("shows the full and pr runs' metered calls, requests, records and wall time beside 3.1's", () => {
    const md = renderMarkdown(fixedReport('kit', { errors: {}, kit: { full: run('full', 50), pr: run('pr', 12) } }));
    expect(md).toContain('## Contract-test kit');
    expect(md).toContain('| 4.0 full (`--profile full`) | 50 | 53 | 200 | 20 | 12.3 s | 90 / 0 / 1 |');
    expect(md).toContain('| 4.0 pr (`--profile pr`) | 12 | 15 | 48 | 3 | 12.3 s | 90 / 0 / 1 |');
    expect(md).toContain('| 3.1 full (issue 23) | 166–175 | 203 | 293 | ~3,000 | ~20 s | — |');
    expect(md).toContain('| 3.1 `--read-only` (issue 23) | 92 |');
  });
});
