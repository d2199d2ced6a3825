// The scale-out scenario's arithmetic and its report section, from fixed rounds: never a measured number.
import { LAYERS } from '../src/cpuprofile.js';
import { describe, expect, it } from 'vitest';
import { MISSED_TARGET_NOTES } from '../src/notes.js';
import { renderMarkdown, scaleSection } from '../src/report.js';
import type { Report } from '../src/results.js';
import {
  HOT_PATH_OFF,
  SCALE_TARGETS,
  type ScaleResult,
  type ScaleRoundStats,
  type ScaleTargetKey,
  scaleRatios,
  summarizeTarget,
} from '../src/scenarios/scale.js';
import { fixedReport } from './report-fixture.js';

function round(rps: number, cpuByPart: Record<string, number>, failures: Record<string, number> = {}): ScaleRoundStats {
  const cpu = Object.values(cpuByPart).reduce((a, b) => a + b, 0);
  return {
    rps,
    p50Ms: 1000 / rps,
    p99Ms: 5000 / rps,
    serverCpu: (cpu * rps) / 1e6,
    serverCpuUsPerRequest: cpu,
    cpuUsPerRequestByPart: cpuByPart,
    kernelUsPerRequest: cpu / 4,
    loadGeneratorCpu: 0.5,
    failures,
    failed: Object.values(failures).reduce((a, b) => a + b, 0),
  };
}

// Three rounds per target; bare Fastify's throughput moves from round to round (a noisy machine), and every ratio
// must be taken within a round.
const RPS: Record<ScaleTargetKey, number[]> = {
  bare: [10_000, 5_000, 8_000],
  sqliteFloor: [5_000, 2_500, 4_000],
  postgresFloor: [2_000, 1_000, 1_600],
  sqlite: [3_000, 2_000, 2_000],
  postgres: [1_000, 600, 800],
  sqliteOff: [1_000, 1_000, 500],
  postgresOff: [500, 400, 400],
  nginx1: [800, 500, 600],
  nginx2: [1_200, 500, 900],
};
const PARTS: Record<ScaleTargetKey, Record<string, number>> = {
  bare: { fastify: 30 },
  sqliteFloor: { floor: 60 },
  postgresFloor: { floor: 100, postgres: 200 },
  sqlite: { reference: 300 },
  postgres: { reference: 600, postgres: 300 },
  sqliteOff: { reference: 450 },
  postgresOff: { reference: 900, postgres: 600 },
  nginx1: { nginx: 50, reference: 700, postgres: 300, redis: 50 },
  nginx2: { nginx: 50, reference: 800, postgres: 300, redis: 50 },
};

function fixedResult(failures: Partial<Record<ScaleTargetKey, Record<string, number>>> = {}): ScaleResult {
  const rounds = Object.fromEntries(
    SCALE_TARGETS.map((k) => [k, RPS[k].map((rps, i) => round(rps, PARTS[k], i === 0 ? failures[k] : undefined))]),
  ) as Record<ScaleTargetKey, ScaleRoundStats[]>;
  const targets = Object.fromEntries(
    SCALE_TARGETS.map((k) => [
      k,
      summarizeTarget(k, rounds[k], rounds.bare, { bodyBytes: 1461, parts: Object.keys(PARTS[k]), processes: 3 }),
    ]),
  ) as ScaleResult['targets'];
  return {
    request: 'GET /v3/manager/orders?page=1&size=10',
    connections: 10,
    warmupSec: 3,
    roundSec: 5,
    rounds: 3,
    hotPathOff: { ...HOT_PATH_OFF },
    targets,
    ...scaleRatios(rounds),
    valid: SCALE_TARGETS.every((k) => targets[k].failed === 0),
  };
}

describe('scale-out ratios', () => {
  const r = fixedResult();

  it('take each target against bare Fastify within a round, then the median over rounds', () => {
    // SQLite ÷ bare per round: 0.3, 0.4, 0.25 → 0.3 (the ratio of the medians would be 2,000 ÷ 8,000 = 0.25).
    expect(r.targets.sqlite.toBare).toBeCloseTo(0.3, 10);
    expect(r.targets.bare.toBare).toBe(1);
    // nginx → 2: 0.12, 0.1, 0.1125 → 0.1125.
    expect(r.targets.nginx2.toBare).toBeCloseTo(0.1125, 10);
  });

  it("take bare Fastify's server CPU per request over each target's within a round, then the median", () => {
    expect(r.targets.sqlite.cpuToBare).toBeCloseTo(0.1, 10);
    expect(r.targets.bare.cpuToBare).toBe(1);
    // Bare Fastify at 30, 60, 15 µs, the PostgreSQL floor at 300, 100, 150: 0.1, 0.6, 0.1 → 0.1, where the ratio
    // of the medians would say 30 ÷ 150 = 0.2.
    const bare = RPS.bare.map((rps, i) => round(rps, { fastify: [30, 60, 15][i]! }));
    const floor = RPS.postgresFloor.map((rps, i) =>
      round(rps, { floor: [100, 50, 50][i]!, postgres: [200, 50, 100][i]! }),
    );
    const paired = summarizeTarget('postgresFloor', floor, bare, {
      bodyBytes: 1,
      parts: ['floor', 'postgres'],
      processes: 1,
    });
    expect(paired.cpuToBare).toBeCloseTo(0.1, 10);
  });

  it('give the hot path on ÷ off per engine, for throughput and server CPU per request', () => {
    // 3, 2, 4 → 3; 2, 1.5, 2 → 2.
    expect(r.hotPath.sqlite.throughput).toBeCloseTo(3, 10);
    expect(r.hotPath.postgres.throughput).toBeCloseTo(2, 10);
    expect(r.hotPath.sqlite.cpuPerRequest).toBeCloseTo(300 / 450, 10);
    expect(r.hotPath.postgres.cpuPerRequest).toBeCloseTo(900 / 1500, 10);
  });

  it('give 2 instances ÷ 1 and the proxied instance ÷ the direct one', () => {
    // 1.5, 1, 1.5 → 1.5; 0.8, 0.8333…, 0.75 → 0.8.
    expect(r.scaleOut.twoToOne).toBeCloseTo(1.5, 10);
    expect(r.scaleOut.proxiedToDirect).toBeCloseTo(0.8, 10);
  });

  it('sum server CPU over the parts, and keep each part', () => {
    expect(r.targets.nginx1.median.serverCpuUsPerRequest).toBe(1100);
    expect(r.targets.nginx1.median.cpuUsPerRequestByPart).toEqual({
      nginx: 50,
      reference: 700,
      postgres: 300,
      redis: 50,
    });
    expect(r.targets.nginx1.parts).toEqual(['nginx', 'reference', 'postgres', 'redis']);
  });
});

describe('the scale-out report section', () => {
  it('has a row per target with its ratio to bare Fastify, and the before/after and scale-out ratios', () => {
    const md = scaleSection(fixedResult(), 2);
    expect(md).toMatch(/^## Scale-out/);
    expect(md).toContain("| Requests/s ÷ bare Fastify | Server CPU: bare Fastify's ÷ this |");
    expect(md).toContain(
      '| **SQLite** | 2,000 | 2,000–3,000 | 0.50 | 2.50 | 300 | 75 | reference 300 | 0.300 × | **0.100 ×** |',
    );
    expect(md).toContain(
      '| **nginx → 1 × PostgreSQL** | 600 | 500–800 | 1.67 | 8.33 | 1,100 | 275 | nginx 50, reference 700, postgres 300, redis 50 | 0.080 × | **0.027 ×** |',
    );
    expect(md).toContain(
      '| **bare Fastify** | 8,000 | 5,000–10,000 | 0.13 | 0.63 | 30 | 8 | fastify 30 | 1 (the ceiling) | 1 (the ceiling) |',
    );
    expect(md).toContain('| **bare Fastify** | 8,000 | 5,000–10,000 |');
    expect(md).toContain('| SQLite: hot path on ÷ off | **3.00 ×** | 0.67 × |');
    expect(md).toContain('| PostgreSQL: hot path on ÷ off | **2.00 ×** | 0.60 × |');
    expect(md).toContain('| nginx → 2 instances ÷ nginx → 1 instance | **1.50 ×** |');
    expect(md).toContain('`API_KEY_CACHE_MS=0 LIVE_USAGE_FLUSH_MS=0`');
    expect(md).toContain('| nginx → 2 × PostgreSQL | 1,200 | 500 | 900 |');
    expect(md).toContain('Every measured response was 2xx');
    expect(md).toContain('judged on these rounds');
    expect(md).toContain("share this machine's 2 cores");
  });

  it('says the numbers are not valid, and why, when a response was not 2xx', () => {
    const r = fixedResult({ nginx2: { 'HTTP 502': 3 }, postgresOff: { timeouts: 1 } });
    expect(r.valid).toBe(false);
    expect(r.targets.nginx2.failed).toBe(3);
    const md = scaleSection(r, 2);
    expect(md).not.toContain('Every measured response was 2xx');
    expect(md).toContain('⚠️ Some responses were not 2xx or failed: these numbers are not valid.');
    expect(md).toContain('PostgreSQL, hot path off: 1 × timeouts; nginx → 2 × PostgreSQL: 3 × HTTP 502.');
  });

  it('is part of the report when the scenario ran, and its failure is reported when it failed', () => {
    const ran = renderMarkdown(fixedReport('scale', { errors: {}, scale: fixedResult() }));
    expect(ran).toContain('## Scale-out');
    expect(ran).toContain('| SQLite: hot path on ÷ off | **3.00 ×** |');
    const failed = renderMarkdown(fixedReport('scale', { errors: { scale: 'postgres exited while starting:\nmore' } }));
    expect(failed).toContain('**The scenario failed:** postgres exited while starting:');
  });
});

describe('what the report says about a missed PostgreSQL or nginx target', () => {
  const report = (scale: ScaleResult) => ({ results: { scale } }) as unknown as Report;

  it("says the floor misses too when the engine's own CPU is past the bound, and how much the layers add", () => {
    // bare 30 µs, the PostgreSQL floor 100 + 200: 0.1 × bare, under the 0.2 × bound; the reference 900.
    const note = MISSED_TARGET_NOTES['get-postgres-vs-bare']!(report(fixedResult()));
    expect(note).toContain(
      'needs 300 µs (floor 100, postgres 200): 0.100 × bare Fastify in the same terms (its rounds 0.100 to 0.100 ×)',
    );
    expect(note).toContain('Even that floor misses the target');
    const cheap = fixedResult();
    for (const r of cheap.targets.postgresFloor.rounds) r.serverCpuUsPerRequest = 120;
    const met = MISSED_TARGET_NOTES['get-postgres-vs-bare']!(report(cheap));
    expect(met).toContain("The floor meets the target; the reference's own layers");
  });

  it('says whether any driver could meet the PostgreSQL target, from what a driver does not touch', () => {
    // 150 µs allowed: HTTP 30 (bare Fastify), PostgreSQL 200, the layers as SQLite's rounds measure them (the
    // reference 300 above its floor's 60: 240, not PostgreSQL's 600 − 100): over before any driver.
    const note = MISSED_TARGET_NOTES['get-postgres-vs-bare']!(report(fixedResult()));
    expect(note).toContain(
      "the 150 µs must hold HTTP as bare Fastify does it (30 µs), PostgreSQL's own work on the statement (200 µs) and " +
        "the reference's layers (240 µs: the reference above its floor on SQLite, the same code measured where no " +
        'database server shares the cores); together they take 470 µs, more than the target allows before the ' +
        "driver spends anything (pg takes about 70 µs: the floor's process above bare Fastify)",
    );
    const light = fixedResult();
    light.targets.postgresFloor.median.cpuUsPerRequestByPart = { floor: 60, postgres: 40 };
    light.targets.sqlite.median.serverCpuUsPerRequest = 70;
    const room = MISSED_TARGET_NOTES['get-postgres-vs-bare']!(report(light));
    expect(room).toContain("that leaves 70 µs for the driver's work on one statement, where pg takes about 30 µs");
    expect(room).not.toContain('no driver can meet it');
  });

  it('sets nginx and Redis against what the bound allows over one instance', () => {
    // One instance 900 µs: 1.3 × allows 270 µs more; nginx 50 + Redis 50 fit in it.
    const note = MISSED_TARGET_NOTES['nginx-two-instances']!(report(fixedResult()));
    expect(note).toContain('the target allows 270 µs more');
    expect(note).toContain('nginx and Redis take 100 µs of the 270 µs allowed');
    const r = fixedResult();
    r.targets.nginx2.median.cpuUsPerRequestByPart.redis = 250;
    expect(MISSED_TARGET_NOTES['nginx-two-instances']!(report(r))).toContain('nginx and Redis alone, 300 µs, exceed');
  });

  it('says when even the SQLite floor is under the GET target, in CPU per request', () => {
    const get = {
      servers: {
        reference: { median: { rps: 2_000, serverCpuUsPerRequest: 300, loadGeneratorCpu: 0.5 } },
        bare: { median: { rps: 8_000, serverCpuUsPerRequest: 30, loadGeneratorCpu: 0.9 } },
      },
    };
    const note = (scale: ScaleResult) =>
      MISSED_TARGET_NOTES['get-vs-bare']!({ results: { get, scale } } as unknown as Report);
    // The fixed floor: 60 µs against bare Fastify's 30, 0.5 ×: it would meet the target, so only the layers miss it.
    expect(note(fixedResult())).toContain(
      "at 0.30 × bare Fastify's 30 µs, the target allows the reference about 100 µs",
    );
    expect(note(fixedResult())).toContain(
      'needs 60 µs (0.500 × bare Fastify, paired round by round; its rounds 0.500 to 0.500 ×), and the reference 300 µs',
    );
    expect(note(fixedResult())).not.toContain('the floor itself missed');
    // Bare Fastify's 30 µs over the floor's 120, 60, 50 µs: 0.25, 0.5, 0.6 ×, a median that meets the bound with one
    // round under it.
    const spread = fixedResult();
    spread.targets.sqliteFloor.rounds.forEach((r, i) => {
      r.serverCpuUsPerRequest = [120, 60, 50][i]!;
    });
    expect(note(spread)).toContain('(0.500 × bare Fastify, paired round by round; its rounds 0.250 to 0.600 ×)');
    expect(note(spread)).toContain(
      "In 1 of 3 rounds the floor itself missed 0.30 ×: the target lies within this machine's spread of the floor",
    );
    expect(note(fixedResult())).toContain('its own layers cost 240 µs per request');
    expect(note(fixedResult())).toContain(
      "That leaves about 40 µs for all of the reference's layers (gateway limit, auth, quota, validation, envelope, " +
        'serialization), which cost 240 µs.',
    );
    expect(note(fixedResult())).not.toContain('Even the floor');
    const slow = fixedResult();
    for (const r of slow.targets.sqliteFloor.rounds) r.serverCpuUsPerRequest = 120;
    expect(note(slow)).toContain('Even the floor misses the target');
    expect(note(slow)).toContain('no change to those layers can meet it on this engine');
    expect(note(slow)).not.toContain('That leaves');
    // Whether the engine leaves the reference any room is said first, before the GET section's own figures.
    expect(note(slow)).toMatch(/^In the scale-out rounds, at 0\.30 × bare Fastify's 30 µs/);
    expect(note(slow)).toContain('In the GET section, the bare Fastify ceiling is 8,000 requests/s');
  });

  it("sets the reference's own code from the profile against what the SQLite floor leaves for the layers", () => {
    const get = {
      servers: {
        reference: { median: { rps: 2_000, serverCpuUsPerRequest: 300, loadGeneratorCpu: 0.5 } },
        bare: { median: { rps: 8_000, serverCpuUsPerRequest: 30, loadGeneratorCpu: 0.9 } },
      },
    };
    const profile = (ownUs: number) => ({
      byLayer: [],
      busyUsPerRequest: 300,
      costByLayer: [{ layer: LAYERS.reference, usPerRequest: ownUs }],
    });
    const note = (ownUs: number) =>
      MISSED_TARGET_NOTES['get-vs-bare']!({
        results: { get, scale: fixedResult(), profile: profile(ownUs) },
      } as unknown as Report);
    // The floor leaves 40 µs (100 allowed, 60 spent).
    expect(note(45)).toContain(
      'own code alone (its hooks, routes and domain), 45.0 µs per request in the profile below, already takes more than that',
    );
    expect(note(12)).toContain(
      'own code (its hooks, routes and domain) takes 12.0 µs per request in the profile below; the rest',
    );
    expect(note(12)).not.toContain('already takes more');
  });

  it("sets the reference's profile beside its floor's, layer by layer, when both were profiled", () => {
    const get = {
      servers: {
        reference: { median: { rps: 2_000, serverCpuUsPerRequest: 300, loadGeneratorCpu: 0.5 } },
        bare: { median: { rps: 8_000, serverCpuUsPerRequest: 30, loadGeneratorCpu: 0.9 } },
      },
    };
    const cost = (sqlite: number, node: number) => [
      { layer: LAYERS.sqlite, usPerRequest: sqlite },
      { layer: LAYERS.node, usPerRequest: node },
    ];
    const profile = (floorSqlite: number) => ({
      byLayer: [],
      busyUsPerRequest: 80,
      costByLayer: cost(30, 50),
      floor: { rps: 1, busyUsPerRequest: floorSqlite + 40, costByLayer: cost(floorSqlite, 40) },
    });
    const note = (p: unknown) =>
      MISSED_TARGET_NOTES['get-vs-bare']!({ results: { get, profile: p } } as unknown as Report);
    expect(note(profile(20))).toContain(
      `the reference is busy 80.0 µs per request and its floor 60.0 µs; the reference spends 10.0 µs more in ` +
        `${LAYERS.sqlite}; 10.0 µs more in ${LAYERS.node}. SQLite is among them although both run the same statement`,
    );
    // Under half a microsecond is not a difference worth naming; without SQLite's, no word on the statement.
    expect(note(profile(29.8))).toContain(`spends 10.0 µs more in ${LAYERS.node}.`);
    expect(note(profile(29.8))).not.toContain('SQLite is among them');
    expect(note({ ...profile(20), floor: undefined })).not.toContain('Profiled one after the other');
    // The reference's own code at a tenth of its 300 µs: 270 µs without it, 30 ÷ 270 of bare Fastify.
    expect(note({ ...profile(20), byLayer: [{ layer: LAYERS.reference, share: 0.1 }] })).toContain(
      'is 10% of its busy time in the profile: were it free, the reference would still need about 270 µs per ' +
        'request, 0.11 × bare Fastify;',
    );
    expect(note(profile(20))).not.toContain('were it free');
  });

  it('sets what 10 × Prism allows a request against what the reference and its floor need', () => {
    const servers = {
      reference: { median: { rps: 10_000, serverCpu: 0.99, serverCpuUsPerRequest: 150, loadGeneratorCpu: 0.5 } },
      prism: { median: { rps: 1_250, serverCpu: 1.6, serverCpuUsPerRequest: 1_300, loadGeneratorCpu: 0.1 } },
    };
    const note = (scale?: ScaleResult) =>
      MISSED_TARGET_NOTES['get-vs-prism']!({
        results: { get: { servers, cpuRatios: { referenceToPrism: 8.7 } }, scale },
      } as unknown as Report);
    expect(note()).toBe(
      'The reference needs 150 µs of CPU per request, Prism (both processes) 1,300 µs. 10 × Prism allows the ' +
        "reference 130 µs per request. See the profile below for the reference's share of each layer.",
    );
    expect(note(fixedResult())).toContain('130 µs per request; the SQLite floor alone needs 60 µs in the scale-out');
  });
});
