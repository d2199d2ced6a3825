import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  // A slow 2-core machine: the browser test installs Chromium, builds and renders a 3 MB page.
  testTimeout: 120_000,
  // Concurrent cases of a browser test each load the 3 MB page: at most four at once (test/concurrently.ts).
  maxConcurrency: 4,
  hookTimeout: 900_000,
});
