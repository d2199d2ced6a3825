// The parts of the harness that turn measurements into the report: the profile summary and the target checks.
import { describe, expect, it } from 'vitest';
import {
  costPerRequest,
  LAYERS,
  layerDifference,
  layerOf,
  originOf,
  summarizeProfile,
  type CpuProfile,
} from '../src/cpuprofile.js';
import type { Results } from '../src/report.js';
import type { GetResult } from '../src/scenarios/get.js';
import { evaluateTargets } from '../src/targets.js';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe('originOf and layerOf', () => {
  it('name the package or workspace directory of a frame', () => {
    const fastify = frame('serialize', 'file:///r/node_modules/.pnpm/fastify@5.12.8/node_modules/fastify/lib/reply.js');
    expect(originOf(fastify)).toBe('fastify');
    expect(layerOf(fastify)).toBe(LAYERS.fastify);
    const sqlite = frame(
      'all',
      'file:///r/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3/lib/methods/wrappers.js',
    );
    expect(layerOf(sqlite)).toBe(LAYERS.sqlite);
    const store = frame('countLiveCall', 'file:///r/apps/reference/dist/store/accounts.js');
    expect(originOf(store)).toBe('apps/reference');
    expect(layerOf(store)).toBe(LAYERS.sqlite);
    expect(layerOf(frame('all', 'file:///r/apps/reference/dist/domain/sqlite-store.js'))).toBe(LAYERS.sqlite);
    expect(layerOf(frame('zonedParts', 'file:///r/apps/reference/dist/service-time.js'))).toBe(LAYERS.reference);
    expect(originOf(frame('writevGeneric', 'node:internal/stream_base_commons'))).toBe('node: stream_base_commons');
    expect(layerOf(frame('writev', ''))).toBe(LAYERS.node);
    expect(layerOf(frame('(garbage collector)', ''))).toBe(LAYERS.v8);
    expect(originOf(frame('(idle)', ''))).toBe('idle');
    expect(originOf(frame('x', 'file:///r/node_modules/@scope/pkg/node_modules/inner/a.js'))).toBe('inner');
  });
});

describe('summarizeProfile', () => {
  // Samples every 100 µs from t = 1,000 µs: idle, then handler, then handler, then GC, then idle, then handler.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(idle)', '') },
      { id: 2, callFrame: frame('handler', 'file:///r/apps/reference/dist/routes.js') },
      { id: 3, callFrame: frame('(garbage collector)', '') },
    ],
    startTime: 1_000,
    endTime: 1_700,
    samples: [1, 2, 2, 3, 1, 2, 1],
    timeDeltas: [100, 100, 100, 100, 100, 100, 100],
  };

  it('gives self time per function as a share of busy time, idle left out', () => {
    const s = summarizeProfile(profile, 10);
    expect(s.windowed).toBe(false);
    expect(s.topFunctions.map((f) => [f.name.split(' ')[0], f.share])).toEqual([
      ['handler', 0.75],
      ['(garbage', 0.25],
    ]);
    expect(s.busyShare).toBeCloseTo(400 / 700, 10);
    expect(s.byLayer).toEqual([
      { layer: LAYERS.reference, share: 0.75 },
      { layer: LAYERS.v8, share: 0.25 },
    ]);
  });

  it('keeps only samples inside the window when it overlaps the profile', () => {
    const s = summarizeProfile(profile, 10, { fromUs: 1_150, toUs: 1_350 });
    expect(s.windowed).toBe(true);
    expect(s.topFunctions.map((f) => f.name.split(' ')[0])).toEqual(['handler']);
    expect(s.windowMs).toBeCloseTo(0.2, 10);
  });

  it('falls back to the whole profile when the window misses it', () => {
    expect(summarizeProfile(profile, 10, { fromUs: 5_000, toUs: 6_000 }).windowed).toBe(false);
  });
});

describe('costPerRequest and layerDifference', () => {
  const summary = {
    windowMs: 1_000,
    busyShare: 0.5,
    windowed: true,
    topFunctions: [],
    byOrigin: [],
    byLayer: [
      { layer: LAYERS.node, share: 0.6 },
      { layer: LAYERS.reference, share: 0.4 },
    ],
  };

  it("spread the window's busy time over the requests answered in it, by the layers' shares", () => {
    // 500 ms busy over 10,000 requests: 50 µs a request, 30 in Node and 20 in the reference.
    const cost = costPerRequest(summary, 10_000);
    expect(cost.busyUs).toBeCloseTo(50, 10);
    expect(cost.byLayer).toEqual([
      { layer: LAYERS.node, usPerRequest: 30 },
      { layer: LAYERS.reference, usPerRequest: 20 },
    ]);
    expect(costPerRequest(summary, 0)).toEqual({ busyUs: 0, byLayer: [] });
  });

  it('say what each layer adds over the floor, largest first, a layer the floor lacks counted whole', () => {
    const reference = costPerRequest(summary, 10_000).byLayer;
    const floor = [
      { layer: LAYERS.node, usPerRequest: 26 },
      { layer: LAYERS.sqlite, usPerRequest: 1 },
    ];
    expect(layerDifference(reference, floor)).toEqual([
      { layer: LAYERS.reference, overUs: 20, baseUs: 0, differenceUs: 20 },
      { layer: LAYERS.node, overUs: 30, baseUs: 26, differenceUs: 4 },
      { layer: LAYERS.sqlite, overUs: 0, baseUs: 1, differenceUs: -1 },
    ]);
  });
});

/** The GET targets are judged in server CPU per request; the throughput ratios are the opposite, to show it. */
function getResult(referenceToBare: number, referenceToPrism: number, valid = true): GetResult {
  return {
    cpuRatios: { referenceToBare, referenceToPrism, bareToPrism: referenceToPrism / referenceToBare },
    ratios: { referenceToBare: 1 - referenceToBare, referenceToPrism: 20 - referenceToPrism, bareToPrism: 1 },
    valid,
  } as GetResult;
}

/** Scale rounds where every target but bare and the two named takes the same CPU: only these ratios matter here. */
function scaleResult(
  bareUs: number[],
  postgresUs: number[],
  nginx2Us: number[],
  valid = true,
  floorsUs = { sqlite: bareUs.map((us) => us * 4), postgres: bareUs.map((us) => us * 8) },
) {
  const rounds = (us: number[]) => us.map((serverCpuUsPerRequest) => ({ serverCpuUsPerRequest, rps: 1 }));
  return {
    valid,
    targets: {
      bare: { rounds: rounds(bareUs) },
      postgres: { rounds: rounds(postgresUs) },
      nginx2: { rounds: rounds(nginx2Us) },
      sqliteFloor: { rounds: rounds(floorsUs.sqlite) },
      postgresFloor: { rounds: rounds(floorsUs.postgres) },
    },
  };
}

describe('evaluateTargets', () => {
  const status = (results: Results) => Object.fromEntries(evaluateTargets(results).map((t) => [t.id, t.status]));

  it('marks each target met or missed on its own threshold', () => {
    const results = {
      errors: {},
      get: getResult(0.3, 9.99),
      // PostgreSQL: bare ÷ reference CPU per round 0.2, 0.25, 0.1 → median 0.2; nginx → 2 ÷ one instance 1.3, 1.4, 1.2.
      scale: scaleResult([10, 10, 10], [50, 40, 100], [65, 56, 120]),
      draft: { p50Ms: 19.9, rowsPerRequest: 1000, postgres: { p50Ms: 40 } },
      bodies: { p99Ratio: 3.5, with: { p99Ms: 70, failed: 0 }, without: { p99Ms: 20, failed: 0 } },
      kit: { full: { wallMs: 12_345 } },
      silent: { held: 8000, ratio: 0.97, valid: true },
      client: { overhead: 0.1, overheadUs: 100 },
      bundle: { client: { gzipBytes: 15_001 } },
      pipeline: { warmSeconds: 2.99 },
    } as unknown as Results;
    expect(status(results)).toEqual({
      'get-vs-bare': 'met',
      'get-vs-prism': 'missed',
      'get-postgres-vs-bare': 'met',
      'nginx-two-instances': 'met',
      'draft-p50': 'met',
      'bodies-p99-ratio': 'missed',
      'draft-postgres-p50': 'missed',
      'kit-full-wall': 'reported',
      'silent-held': 'reported',
      'client-overhead': 'missed',
      'client-bundle': 'missed',
      'unchanged-rebuild': 'met',
    });
    const targets = evaluateTargets(results);
    expect(targets.find((t) => t.id === 'get-postgres-vs-bare')!.value).toBeCloseTo(0.2, 10);
    expect(targets.find((t) => t.id === 'nginx-two-instances')!.value).toBeCloseTo(1.3, 10);
    expect(targets.find((t) => t.id === 'kit-full-wall')!.measured).toBe('12.3 s');
    expect(targets.find((t) => t.id === 'silent-held')!.measured).toBe('0.97 ×');
    expect(targets.find((t) => t.id === 'draft-postgres-p50')!.measured).toBe('40.0 ms');
    expect(targets.find((t) => t.id === 'bodies-p99-ratio')!.measured).toBe('3.50 × (70.0 ms ÷ 20.0 ms)');
    // Each GET target shows its engine's floor against the same bound beside it: bare ÷ floor, paired per round.
    expect(targets.find((t) => t.id === 'get-vs-bare')!.measured).toBe('0.30 × (its floor: 0.25 ×)');
    expect(targets.find((t) => t.id === 'get-postgres-vs-bare')!.measured).toBe('0.20 × (its floor: 0.13 ×)');
    const withoutScale = evaluateTargets({ ...results, scale: undefined } as unknown as Results);
    expect(withoutScale.find((t) => t.id === 'get-vs-bare')!.measured).toBe('0.30 ×');
  });

  it('judges the PostgreSQL draft p50 on its own bound, and says why it is missing when PostgreSQL failed', () => {
    const met = { errors: {}, draft: { p50Ms: 30, rowsPerRequest: 1000, postgres: { p50Ms: 39.9 } } };
    expect(status(met as unknown as Results)).toMatchObject({ 'draft-p50': 'missed', 'draft-postgres-p50': 'met' });
    const failed = { errors: {}, draft: { p50Ms: 19, rowsPerRequest: 1000, postgresError: 'initdb not found' } };
    const target = evaluateTargets(failed as unknown as Results).find((t) => t.id === 'draft-postgres-p50')!;
    expect([target.status, target.measured]).toEqual(['not run', 'PostgreSQL failed: initdb not found']);
  });

  it('misses each bound just past it', () => {
    const results = {
      errors: {},
      get: getResult(0.29, 10),
      scale: scaleResult([10], [51], [67]),
      draft: { p50Ms: 20, rowsPerRequest: 1000 },
    } as unknown as Results;
    expect(status(results)).toMatchObject({
      'get-vs-bare': 'missed',
      'get-vs-prism': 'met',
      'get-postgres-vs-bare': 'missed',
      'nginx-two-instances': 'missed',
      'draft-p50': 'missed',
    });
  });

  it('says "not run" for a scenario left out or failed, and "invalid" for a run with failed responses', () => {
    const results = {
      errors: { pipeline: 'boom' },
      get: getResult(0.9, 9, false),
      scale: scaleResult([10], [20], [20], false),
      silent: { held: 8000, ratio: 1, valid: false },
    } as unknown as Results;
    const targets = evaluateTargets(results);
    expect(status(results)).toEqual({
      'get-vs-bare': 'invalid',
      'get-vs-prism': 'invalid',
      'get-postgres-vs-bare': 'invalid',
      'nginx-two-instances': 'invalid',
      'draft-p50': 'not run',
      'bodies-p99-ratio': 'not run',
      'draft-postgres-p50': 'not run',
      'kit-full-wall': 'not run',
      'silent-held': 'invalid',
      'client-overhead': 'not run',
      'client-bundle': 'not run',
      'unchanged-rebuild': 'not run',
    });
    expect(targets.find((t) => t.id === 'unchanged-rebuild')!.measured).toBe('scenario failed');
    expect(targets.find((t) => t.id === 'draft-postgres-p50')!.measured).toBe('—');
  });
});
