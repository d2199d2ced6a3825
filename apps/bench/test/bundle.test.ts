// The bundle scenario on the real package: packed, installed, bundled and gzipped. A size does not depend on the
// machine's speed; what is checked is that the numbers are the bundle's, and the report shows them.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../src/context.js';
import { FULL } from '../src/options.js';
import { renderMarkdown, type Report } from '../src/report.js';
import { runBundle } from '../src/scenarios/bundle.js';
import { evaluateTargets } from '../src/targets.js';
import { repoRoot } from '../src/bench.js';

describe('the bundle scenario', () => {
  it('bundles the packed client with openapi-fetch, and the report shows the gzipped size beside the target', {
    timeout: 600_000,
  }, async () => {
    const result = await runBundle({
      settings: FULL,
      spec: loadContract(),
      repoRoot,
      artefactsDir: '',
      log: () => undefined,
    });
    const { client, openapiFetch } = result;
    expect(Object.keys(client.byPackage).sort()).toEqual(['(entry)', '@cls-api/client', 'openapi-fetch']);
    expect(Object.keys(openapiFetch.byPackage).sort()).toEqual(['(entry)', 'openapi-fetch']);
    expect(client.entry).toContain("import { createClient } from '@cls-api/client';");
    for (const size of [client, openapiFetch]) expect(size.gzipBytes).toBeLessThan(size.minifiedBytes);
    expect(client.minifiedBytes).toBeGreaterThan(openapiFetch.minifiedBytes);
    // gzip of a few bytes is about 20 bytes: the sizes are of real code.
    expect(openapiFetch.gzipBytes).toBeGreaterThan(gzipSync('export {}').length * 10);
    expect(result.ratio).toBeCloseTo(client.gzipBytes / openapiFetch.gzipBytes, 10);

    const results = { errors: {}, bundle: result };
    const targets = evaluateTargets(results);
    const target = targets.find((t) => t.id === 'client-bundle')!;
    expect(target.value).toBe(client.gzipBytes);
    const markdown = renderMarkdown({
      title: 'Benchmarks',
      quick: true,
      command: 'pnpm bench --only bundle',
      machine: { cores: 2, loadAverage: [0, 0, 0] } as unknown as Report['machine'],
      commit: undefined,
      scenarios: ['bundle'],
      settings: FULL,
      results,
      targets,
      finishedAt: '',
      loadAverageAtEnd: [0, 0, 0],
      durationSec: 0,
    });
    const kb = (bytes: number) =>
      `${(bytes / 1000).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} KB`;
    expect(markdown).toContain(`| @cls-api/client | ${kb(client.minifiedBytes)} | **${kb(client.gzipBytes)}** |`);
    expect(markdown).toContain(
      `| openapi-fetch alone | ${kb(openapiFetch.minifiedBytes)} | ${kb(openapiFetch.gzipBytes)} |`,
    );
  });
});
