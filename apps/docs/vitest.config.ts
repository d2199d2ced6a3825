import { packageTestConfig } from '../../vitest.shared.mjs';

export default packageTestConfig({
  globalSetup: ['test/global-setup.ts'],
  // A slow 2-core machine: the browser test installs Chromium, builds and renders a 3 MB page.
  testTimeout: 120_000,
  hookTimeout: 900_000,
});
