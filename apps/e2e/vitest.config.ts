import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The root test summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    // The servers are real processes (Prism among them), which take seconds to start on a loaded 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    fileParallelism: false,
  },
});
