import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL for the suites that run on both engines (test/support/engines.ts).
    globalSetup: ['test/global-setup.ts'],
    // The root summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    env: { NODE_ENV: 'test' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
