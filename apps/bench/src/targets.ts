// The targets of issue 7, checked against a run's results. They live here and in the report, never in tests.
import { fmt } from './context.js';
import type { ScenarioName } from './options.js';
import type { Results, TargetResult } from './results.js';

export type { TargetResult, TargetStatus } from './results.js';

interface TargetDefinition {
  id: string;
  scenario: ScenarioName;
  target: (r: Results) => string;
  /** The measured value, or undefined when the scenario did not run; `valid` false when its numbers are unusable. */
  measure: (r: Results) => { value: number; text: string; valid: boolean } | undefined;
  met: (value: number) => boolean;
}

const DEFINITIONS: TargetDefinition[] = [
  {
    id: 'get-vs-bare',
    scenario: 'get',
    target: () => 'Reference GET throughput ≥ 0.6 × bare Fastify',
    measure: (r) =>
      r.get && {
        value: r.get.ratios.referenceToBare,
        text: `${fmt(r.get.ratios.referenceToBare, 2)} ×`,
        valid: r.get.valid,
      },
    met: (v) => v >= 0.6,
  },
  {
    id: 'get-vs-prism',
    scenario: 'get',
    target: () => 'Reference GET throughput ≥ 5 × Prism mock',
    measure: (r) =>
      r.get && {
        value: r.get.ratios.referenceToPrism,
        text: `${fmt(r.get.ratios.referenceToPrism, 1)} ×`,
        valid: r.get.valid,
      },
    met: (v) => v >= 5,
  },
  {
    id: 'draft-p50',
    scenario: 'draft',
    target: (r) => `${r.draft ? fmt(r.draft.rowsPerRequest) : 'Full'}-row draft request p50 < 50 ms`,
    measure: (r) => r.draft && { value: r.draft.p50Ms, text: `${fmt(r.draft.p50Ms, 1)} ms`, valid: true },
    met: (v) => v < 50,
  },
  {
    id: 'client-overhead',
    scenario: 'client',
    target: () => 'Client per-call overhead < 10% of a bare fetch',
    measure: (r) =>
      r.client && {
        value: r.client.overhead,
        text: `${fmt(r.client.overhead * 100, 1)}% (${fmt(r.client.overheadUs)} µs)`,
        valid: true,
      },
    met: (v) => v < 0.1,
  },
  {
    id: 'client-bundle',
    scenario: 'bundle',
    target: () => 'Client in a browser bundle (`createClient` and one call, with its dependencies) ≤ 15 KB gzipped',
    measure: (r) =>
      r.bundle && {
        value: r.bundle.client.gzipBytes,
        text: `${fmt(r.bundle.client.gzipBytes / 1000, 1)} KB (${fmt(r.bundle.client.gzipBytes)} bytes)`,
        valid: true,
      },
    met: (v) => v <= 15_000,
  },
  {
    id: 'unchanged-rebuild',
    scenario: 'pipeline',
    target: () => 'Unchanged rebuild (`pnpm build`, turbo cache) < 3 s',
    measure: (r) =>
      r.pipeline && { value: r.pipeline.warmSeconds, text: `${fmt(r.pipeline.warmSeconds, 2)} s`, valid: true },
    met: (v) => v < 3,
  },
];

export function evaluateTargets(results: Results): TargetResult[] {
  return DEFINITIONS.map((d) => {
    const m = d.measure(results);
    const base = { id: d.id, scenario: d.scenario, target: d.target(results) };
    if (!m)
      return {
        ...base,
        measured: results.errors[d.scenario] ? 'scenario failed' : '—',
        value: undefined,
        status: 'not run',
      };
    if (!m.valid || !Number.isFinite(m.value)) return { ...base, measured: m.text, value: m.value, status: 'invalid' };
    return { ...base, measured: m.text, value: m.value, status: d.met(m.value) ? 'met' : 'missed' };
  });
}
