import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The root test summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    // A slow 2-core machine: the browser test installs Chromium, builds and renders a 3 MB page.
    testTimeout: 120_000,
    hookTimeout: 900_000,
  },
});
