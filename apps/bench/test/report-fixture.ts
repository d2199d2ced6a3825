// A report as `pnpm bench --only <scenario>` writes it, on a fixed machine and clock, for the tests of a scenario's
// section: only the results are the test's own.
import { FULL } from '../src/options.js';
import type { Report } from '../src/results.js';
import type { ScenarioName } from '../src/options.js';

export function fixedReport(scenario: ScenarioName, results: Report['results']): Report {
  return {
    title: 'Benchmarks',
    quick: false,
    command: `pnpm bench --only ${scenario}`,
    machine: {
      cores: 2,
      cpuModel: 'test',
      memoryGiB: 8,
      freeMemoryGiB: 4,
      node: 'v20',
      os: 'linux',
      loadAverage: [1, 1, 1],
      startedAt: '2026-01-01T00:00:00.000Z',
    },
    commit: undefined,
    scenarios: [scenario],
    settings: FULL,
    targets: [],
    finishedAt: '2026-01-01T00:05:00.000Z',
    loadAverageAtEnd: [1, 1, 1],
    durationSec: 300,
    results,
  };
}
