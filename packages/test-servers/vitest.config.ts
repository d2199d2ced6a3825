import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The root summary adds up every package's reports/vitest.json.
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
  },
});
