import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The root test summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    // The servers are real processes (Prism among them), which take seconds to start on an idle 2-core machine and
    // minutes on a busy one: the hook that starts them waits past Prism's own startup guard (600 s).
    testTimeout: 120_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
