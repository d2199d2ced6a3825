// What every package's vitest.config.ts shares: where the tests are, and the JSON report the root summary
// (scripts/test-all.mjs) adds up. Each package keeps its own config, and so its own turbo test task: one root
// configuration with projects would make the whole repo one task, cached and re-run as one.
// Plain JavaScript with its types beside it (vitest.shared.d.mts), so that each package type-checks its config
// without taking this file into its own sources.

/** @param {import('./vitest.shared.d.mts').PackageTestOptions} options */
export function packageTestConfig(options) {
  return {
    test: {
      include: ['test/**/*.test.ts'],
      reporters: ['default', 'json'],
      outputFile: { json: 'reports/vitest.json' },
      ...options,
    },
  };
}
