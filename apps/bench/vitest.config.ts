import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The root test summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    // The smoke run starts Prism, which takes seconds on a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
