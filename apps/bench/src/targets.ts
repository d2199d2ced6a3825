// The targets of issue 28 (the performance targets of 4.0; issue 7's are where these began), checked against a run's
// results. Each threshold is written once, here; the report and its notes read it from `THRESHOLDS`. They live here
// and in the report, never in tests.
import { fmt } from './context.js';
import type { ScenarioName } from './options.js';
import type { Results, TargetResult } from './results.js';
import type { ScaleRoundStats, ScaleTargetKey } from './scenarios/scale.js';
import { median, ratio } from './stats.js';

export type { TargetResult, TargetStatus } from './results.js';

type Comparison = '≥' | '≤' | '<';

interface Threshold {
  op: Comparison;
  value: number;
}

/** Every target's bound. A target without one (the kit's wall time) is reported, not judged. */
export const THRESHOLDS = {
  getVsBare: { op: '≥', value: 0.3 },
  getVsPrism: { op: '≥', value: 10 },
  getPostgresVsBare: { op: '≥', value: 0.2 },
  nginxTwoToDirect: { op: '≤', value: 1.3 },
  draftSqliteP50Ms: { op: '<', value: 20 },
  draftPostgresP50Ms: { op: '<', value: 40 },
  bodiesP99Ratio: { op: '≤', value: 3 },
  clientOverhead: { op: '<', value: 0.1 },
  clientBundleBytes: { op: '≤', value: 15_000 },
  unchangedRebuildSec: { op: '<', value: 3 },
} as const satisfies Record<string, Threshold>;

interface Measurement {
  value: number;
  text: string;
  /** false when the run's numbers are unusable (failed responses). */
  valid: boolean;
}

interface TargetDefinition {
  id: string;
  scenario: ScenarioName;
  target: (r: Results) => string;
  /** The measured value, or undefined when the scenario did not run. */
  measure: (r: Results) => Measurement | undefined;
  /** undefined: the value is reported, with no bound to meet. */
  threshold?: Threshold;
  /** What the measured column says when the scenario ran but does not measure this target. */
  notMeasured?: (r: Results) => string | undefined;
}

const bound = (t: Threshold, digits = 2) => `${t.op} ${fmt(t.value, digits)}`;

function meets(t: Threshold, v: number): boolean {
  if (t.op === '≥') return v >= t.value;
  if (t.op === '≤') return v <= t.value;
  return v < t.value;
}

/** Median over rounds of a ratio within one round of the scale scenario, pairing target `a`'s round i with `b`'s. */
export function pairedScale(r: Results, a: ScaleTargetKey, b: ScaleTargetKey, pick: (s: ScaleRoundStats) => number) {
  const s = r.scale!;
  return median(s.targets[a].rounds.map((round, i) => ratio(pick(round), pick(s.targets[b].rounds[i]!))));
}

export const cpu = (s: ScaleRoundStats) => s.serverCpuUsPerRequest;

/** An engine's floor against the same bound, beside a GET target's measure, when the scale-out rounds ran. */
const floorText = (r: Results, floor: 'sqliteFloor' | 'postgresFloor') =>
  r.scale ? ` (its floor: ${fmt(pairedScale(r, 'bare', floor, cpu), 2)} ×)` : '';

const DEFINITIONS: TargetDefinition[] = [
  {
    id: 'get-vs-bare',
    scenario: 'get',
    threshold: THRESHOLDS.getVsBare,
    target: () =>
      `Reference GET on SQLite ${bound(THRESHOLDS.getVsBare)} × bare Fastify (server CPU per request; throughput in the GET section)`,
    measure: (r) =>
      r.get && {
        value: r.get.cpuRatios.referenceToBare,
        text: `${fmt(r.get.cpuRatios.referenceToBare, 2)} ×${floorText(r, 'sqliteFloor')}`,
        valid: r.get.valid,
      },
  },
  {
    id: 'get-vs-prism',
    scenario: 'get',
    threshold: THRESHOLDS.getVsPrism,
    target: () =>
      `Reference GET on SQLite ${bound(THRESHOLDS.getVsPrism, 0)} × Prism mock (server CPU per request; throughput in the GET section)`,
    measure: (r) =>
      r.get && {
        value: r.get.cpuRatios.referenceToPrism,
        text: `${fmt(r.get.cpuRatios.referenceToPrism, 1)} ×`,
        valid: r.get.valid,
      },
  },
  {
    // On a shared machine throughput of a two-process target says little: the bound is on CPU per request, bare
    // Fastify's ÷ the reference's and its PostgreSQL server's together, paired round by round.
    id: 'get-postgres-vs-bare',
    scenario: 'scale',
    threshold: THRESHOLDS.getPostgresVsBare,
    target: () =>
      `Reference GET on PostgreSQL ${bound(THRESHOLDS.getPostgresVsBare)} × bare Fastify (server CPU per request, reference and PostgreSQL summed)`,
    measure: (r) => {
      if (!r.scale) return undefined;
      const value = pairedScale(r, 'bare', 'postgres', cpu);
      return { value, text: `${fmt(value, 2)} ×${floorText(r, 'postgresFloor')}`, valid: r.scale.valid };
    },
  },
  {
    id: 'nginx-two-instances',
    scenario: 'scale',
    threshold: THRESHOLDS.nginxTwoToDirect,
    target: () =>
      `nginx → 2 instances (PostgreSQL, Redis): server CPU per request ${bound(THRESHOLDS.nginxTwoToDirect, 1)} × one instance without nginx`,
    measure: (r) => {
      if (!r.scale) return undefined;
      const value = pairedScale(r, 'nginx2', 'postgres', cpu);
      return { value, text: `${fmt(value, 2)} ×`, valid: r.scale.valid };
    },
  },
  {
    id: 'draft-p50',
    scenario: 'draft',
    threshold: THRESHOLDS.draftSqliteP50Ms,
    target: (r) =>
      `${r.draft ? fmt(r.draft.rowsPerRequest) : 'Full'}-row draft request p50 on SQLite ${bound(THRESHOLDS.draftSqliteP50Ms, 0)} ms`,
    measure: (r) => r.draft && { value: r.draft.p50Ms, text: `${fmt(r.draft.p50Ms, 1)} ms`, valid: true },
  },
  {
    id: 'bodies-p99-ratio',
    scenario: 'bodies',
    threshold: THRESHOLDS.bodiesP99Ratio,
    target: () =>
      `Other clients' GET p99 while one client sends the largest draft bodies ${bound(THRESHOLDS.bodiesP99Ratio, 0)} × without it`,
    measure: (r) =>
      r.bodies && {
        value: r.bodies.p99Ratio,
        text: `${fmt(r.bodies.p99Ratio, 2)} × (${fmt(r.bodies.with.p99Ms, 1)} ms ÷ ${fmt(r.bodies.without.p99Ms, 1)} ms)`,
        valid: r.bodies.without.failed === 0 && r.bodies.with.failed === 0,
      },
  },
  {
    id: 'draft-postgres-p50',
    scenario: 'draft',
    threshold: THRESHOLDS.draftPostgresP50Ms,
    target: (r) =>
      `${r.draft ? fmt(r.draft.rowsPerRequest) : 'Full'}-row draft request p50 on PostgreSQL ${bound(THRESHOLDS.draftPostgresP50Ms, 0)} ms`,
    measure: (r) =>
      r.draft?.postgres && { value: r.draft.postgres.p50Ms, text: `${fmt(r.draft.postgres.p50Ms, 1)} ms`, valid: true },
    notMeasured: (r) => (r.draft?.postgresError ? `PostgreSQL failed: ${r.draft.postgresError}` : undefined),
  },
  {
    id: 'kit-full-wall',
    scenario: 'kit',
    target: () => 'Contract-test kit full run against the reference: wall time (reported)',
    measure: (r) => r.kit && { value: r.kit.full.wallMs, text: `${fmt(r.kit.full.wallMs / 1000, 1)} s`, valid: true },
  },
  {
    id: 'silent-held',
    scenario: 'silent',
    target: (r) =>
      `New-connection calls per second with ${r.silent ? fmt(r.silent.held) : 'many'} silent connections held ÷ with none (reported)`,
    measure: (r) => r.silent && { value: r.silent.ratio, text: `${fmt(r.silent.ratio, 2)} ×`, valid: r.silent.valid },
  },
  {
    id: 'client-overhead',
    scenario: 'client',
    threshold: THRESHOLDS.clientOverhead,
    target: () => `Client per-call overhead < ${fmt(THRESHOLDS.clientOverhead.value * 100)}% of a bare fetch`,
    measure: (r) =>
      r.client && {
        value: r.client.overhead,
        text: `${fmt(r.client.overhead * 100, 1)}% (${fmt(r.client.overheadUs)} µs)`,
        valid: true,
      },
  },
  {
    id: 'client-bundle',
    scenario: 'bundle',
    threshold: THRESHOLDS.clientBundleBytes,
    target: () =>
      `Client in a browser bundle (\`createClient\` and one call, with its dependencies) ≤ ${fmt(THRESHOLDS.clientBundleBytes.value / 1000)} KB gzipped`,
    measure: (r) =>
      r.bundle && {
        value: r.bundle.client.gzipBytes,
        text: `${fmt(r.bundle.client.gzipBytes / 1000, 1)} KB (${fmt(r.bundle.client.gzipBytes)} bytes)`,
        valid: true,
      },
  },
  {
    id: 'unchanged-rebuild',
    scenario: 'pipeline',
    threshold: THRESHOLDS.unchangedRebuildSec,
    target: () => `Unchanged rebuild (\`pnpm build\`, turbo cache) < ${fmt(THRESHOLDS.unchangedRebuildSec.value)} s`,
    measure: (r) =>
      r.pipeline && { value: r.pipeline.warmSeconds, text: `${fmt(r.pipeline.warmSeconds, 2)} s`, valid: true },
  },
];

export function evaluateTargets(results: Results): TargetResult[] {
  return DEFINITIONS.map((d) => {
    const m = d.measure(results);
    const base = { id: d.id, scenario: d.scenario, target: d.target(results) };
    if (!m)
      return {
        ...base,
        measured: results.errors[d.scenario] ? 'scenario failed' : (d.notMeasured?.(results) ?? '—'),
        value: undefined,
        status: 'not run',
      };
    if (!m.valid || !Number.isFinite(m.value)) return { ...base, measured: m.text, value: m.value, status: 'invalid' };
    if (!d.threshold) return { ...base, measured: m.text, value: m.value, status: 'reported' };
    return { ...base, measured: m.text, value: m.value, status: meets(d.threshold, m.value) ? 'met' : 'missed' };
  });
}
