import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The root test summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    // Unit tests run on a virtual clock and take milliseconds; the generous limit is for the generator, npm and
    // Prism on a busy two-core machine; a hook that starts Prism waits past its startup guard (600 s).
    testTimeout: 60_000,
    hookTimeout: 900_000,
  },
});
