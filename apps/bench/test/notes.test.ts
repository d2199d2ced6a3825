// What the report says about a missed draft target, from fixed results: never a measured number.
import { describe, expect, it } from 'vitest';
import { MISSED_TARGET_NOTES } from '../src/notes.js';
import type { Report } from '../src/results.js';
import type { DraftEngineResult } from '../src/scenarios/draft.js';

const engine = (p50s: number[], serverCpuMsPerRequest: number): DraftEngineResult => ({
  responseBytes: 200_742,
  rounds: p50s.map((p50Ms) => ({ p50Ms, p99Ms: p50Ms * 2, rowsPerSecond: 1, requests: 10 })),
  p50Ms: [...p50s].sort((a, b) => a - b)[Math.floor(p50s.length / 2)]!,
  p99Ms: 50,
  measuredRequests: 10 * p50s.length,
  rowsPerSecond: 1,
  serverCpuMsPerRequest,
  peakRssMiB: 100,
  draftsBeforeLastRequest: 1,
});
const report = (sqlite: DraftEngineResult, postgres?: DraftEngineResult) =>
  ({ results: { draft: { ...sqlite, requestBytes: 240_706, rowsPerRequest: 1000, postgres } } }) as unknown as Report;

describe('what the report says about a missed draft target', () => {
  it('when the server waits, the rest of the time is the bytes and the other core', () => {
    const note = MISSED_TARGET_NOTES['draft-p50']!(report(engine([21, 22, 23], 12)));
    expect(note).toBe(
      'Of 22.0 ms, the server spends 12.0 ms of CPU per request; the rest is moving 240,706 bytes in and 200,742 out ' +
        "over loopback and waiting for the other core; the rounds' p50 ranged from 21.0 to 23.0 ms.",
    );
  });

  it('when the CPU time is the whole time, it says the request is bound by the CPU, and never "the rest"', () => {
    const note = MISSED_TARGET_NOTES['draft-p50']!(report(engine([17, 28.5, 30], 29.2)));
    expect(note).toContain('spend 29.2 ms of CPU per request, as much as the 28.5 ms p50 or more');
    expect(note).toContain("the rounds' p50 ranged from 17.0 to 30.0 ms");
    expect(note).not.toContain('the rest is');
  });

  it("explains PostgreSQL's draft on its own numbers, and says nothing when PostgreSQL did not run", () => {
    const postgres = { ...engine([41, 42, 60], 30), databaseCpuMsPerRequest: 12 };
    const note = MISSED_TARGET_NOTES['draft-postgres-p50']!(report(engine([18], 15), postgres));
    expect(note).toContain(
      'Of 42.0 ms, the server spends 30.0 ms of CPU per request (the reference 18.0 ms, PostgreSQL 12.0 ms running',
    );
    expect(MISSED_TARGET_NOTES['draft-p50']!(report(engine([18], 15), postgres))).not.toContain('PostgreSQL 12.0');
    expect(MISSED_TARGET_NOTES['draft-postgres-p50']!(report(engine([18], 15)))).toBe('');
  });
});

describe('what the report says about a missed client overhead target', () => {
  const client = (openapiFetch: number, layers: number) =>
    ({
      results: {
        client: {
          fetchMedianUs: 400,
          overheadUs: 12 + openapiFetch + layers,
          rounds: [{ overhead: 0.08 }, { overhead: 0.13 }, { overhead: 0.11 }],
          steps: { request: 12, openapiFetch, layers },
        },
      },
    }) as unknown as Report;

  it("says what openapi-fetch leaves the client's own layers of the 10% allowed", () => {
    const note = MISSED_TARGET_NOTES['client-overhead']!(client(28, 16));
    expect(note).toContain('from round to round the overhead ranged from 8% to 13%');
    // 10% of 400 µs is 40; openapi-fetch takes 28 of them.
    expect(note).toContain("Of the 40 µs the target allows, openapi-fetch leaves the client's layers 12 µs.");
    expect(MISSED_TARGET_NOTES['client-overhead']!(client(45, 16))).toContain(
      "openapi-fetch leaves the client's layers nothing.",
    );
    expect(note).not.toContain('idle machine');
  });
});
