import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Each file starts servers and sends paced requests; two cores are shared with the other packages' tests.
    fileParallelism: false,
  },
});
