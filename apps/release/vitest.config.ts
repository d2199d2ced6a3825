import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The root test summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    // Optic's comparison and the registry round trip each take seconds to minutes on a loaded 2-core machine.
    testTimeout: 240_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
