// The bodies scenario's section of the report, on fixed inputs: both phases, the ratio, and how much the harness's
// own event loop was delayed in each (what of the measured latency is the harness's, not the server's).
import { describe, expect, it } from 'vitest';
import type { BodiesPhase, BodiesResult } from '../src/scenarios/bodies.js';
import { renderMarkdown } from '../src/report.js';
import { fixedReport } from './report-fixture.js';

const phase = (p99Ms: number, loopP99: number, loopMax: number): BodiesPhase => ({
  requests: 2_400,
  p50Ms: 1.2,
  p99Ms,
  failed: 0,
  harnessLoopDelayP99Ms: loopP99,
  harnessLoopDelayMaxMs: loopMax,
});

const result: BodiesResult = {
  request: 'POST /v3/wms/orders/draft',
  requestBytes: 5_376_559,
  rowsPerRequest: 1_000,
  largeConcurrency: 8,
  others: 4,
  otherIntervalMs: 50,
  rounds: 3,
  roundSec: 10,
  without: phase(4, 1.1, 2.5),
  with: phase(8.7, 1.4, 3.25),
  largeStatuses: { '200': 377 },
  largeP50Ms: 661,
  p99Ratio: 2.175,
};

describe('the bodies scenario in the report', () => {
  it("shows both phases, the ratio, and the harness's own loop delay in each", () => {
    const md = renderMarkdown(fixedReport('bodies', { errors: {}, bodies: result }));
    expect(md).toContain('one more client, in a worker thread of the harness, sends `POST /v3/wms/orders/draft`');
    expect(md).toContain('| without the large-body client | 2,400 | 1.2 | **4.0** | 0 |');
    expect(md).toContain('| with it | 2,400 | 1.2 | **8.7** | 0 |');
    expect(md).toContain('- p99 with ÷ without: **2.18 ×**.');
    expect(md).toContain(
      "- The harness's own event loop, which sends and times the other clients' calls, was delayed 1.4 ms at p99 " +
        '(at most 3.3 ms) with the large-body client, 1.1 ms (at most 2.5 ms) without',
    );
    expect(md).toContain('377 × 200; their own p50 661 ms');
  });
});
