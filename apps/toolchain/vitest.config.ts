import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  // One reference server for every file (started in the global set-up); the tools are real processes (a JVM, two
  // generators, tsc), which take seconds on an idle 2-core machine and minutes on a busy one.
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 120_000,
  hookTimeout: 900_000,
});
