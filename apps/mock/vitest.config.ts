import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  // Each file starts its own Prism in a hook: seconds on an idle 2-core machine, more than two minutes on one that
  // runs two copies of the test suite. The hook waits past Prism's own startup guard (600 s, src/prism.ts).
  // Tests that start Prism themselves say so with a limit of their own (test/lifecycle.test.ts).
  testTimeout: 60_000,
  hookTimeout: 900_000,
});
